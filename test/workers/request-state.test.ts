/**
 * requestState across isolates with nothing configured: one key kept in a McpHub Durable Object, and single-use
 * states claimed in McpHub objects. Another isolate is a fresh instance of the adapter's modules (vi.resetModules),
 * which has what a new isolate has: no key in memory, the same Durable Objects.
 */
import { abortAllDurableObjects, createExecutionContext, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { durableUsedStates, type McpHub } from '../../adapters/cloudflare/index.js'
import { shardOf } from '../../src/core.js'
import { createFetchHandler } from '../../src/index.js'
import { META, mcpRequest } from './sse.js'

type Modules = typeof import('../../adapters/cloudflare/index.js') & typeof import('../../src/index.js')

/** The adapter and the package as another isolate loads them: module state of its own. */
async function isolate(): Promise<Modules> {
  vi.resetModules()
  return { ...await import('../../src/index.js'), ...await import('../../adapters/cloudflare/index.js') }
}

// Both made before any Durable Object is used: a reset reloads the Worker's module, which invalidates the
// objects already running (workerd tells their callers to retry).
let a: Modules
let b: Modules
beforeAll(async () => {
  a = await isolate()
  b = await isolate()
})

const ASKING = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
const ANSWER = { sure: { action: 'accept', content: { sure: true } } }

/** A Worker whose one tool asks before it answers, as `m` (an isolate's modules) makes it. */
function confirmWorker(m: Modules, options: Parameters<Modules['createWorker']>[1] = {}) {
  const server = new m.McpServer({ name: 'confirm', version: '1' }).tool('confirm', { description: 'Asks first' }, async (_args, ctx) => {
    const answer = await ctx.elicit('sure', { message: 'Sure?', requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } } })
    return `answered ${answer.action}`
  })
  return m.createWorker<Record<string, unknown>>(server, options)
}

type Answerer = (request: Request) => Promise<Response>
const through = (worker: ReturnType<typeof confirmWorker>, bindings: Record<string, unknown>): Answerer => (request) => worker.fetch(request, bindings, createExecutionContext())

/** The first round's requestState, as `first` seals it. */
async function ask(first: Answerer): Promise<string> {
  const body = await (await first(mcpRequest('tools/call', { name: 'confirm', arguments: {} }, 1, ASKING))).json() as any
  expect(body.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) })
  return body.result.requestState
}

/** The retry with the answer and `requestState`: the tool's text, or the error message. */
async function retry(second: Answerer, requestState: string): Promise<string> {
  const body = await (await second(mcpRequest('tools/call', { name: 'confirm', arguments: {}, inputResponses: ANSWER, requestState }, 2, ASKING))).json() as any
  return body.result?.content[0].text ?? body.error.message
}

const hubObject = (name: string) => env.MCP_HUB.get(env.MCP_HUB.idFromName(name))
/** What `look` finds inside the McpHub object of that name. */
const inside = <T>(name: string, look: (storage: DurableObjectStorage) => T | Promise<T>) =>
  runInDurableObject(hubObject(name), async (_hub: McpHub, state: DurableObjectState) => look(state.storage))
const storedSecret = (name = 'mcp-keys') => inside(name, (storage) => storage.kv.get('request-state-secret'))
// Only the hub binding: no MCP_REQUEST_STATE_SECRET (the test config sets one for the everything Worker).
const bare = { MCP_HUB: env.MCP_HUB }

describe('the requestState secret in a Durable Object', () => {
  it('lets two isolates with no secret configured take each other\'s states, under the key the object keeps', async () => {
    // Two instances of the module, so two caches: each reads the key from the object.
    expect(a.durableSharedSecret).not.toBe(b.durableSharedSecret)
    const one = through(confirmWorker(a), bare)
    const other = through(confirmWorker(b), bare)
    expect(await retry(other, await ask(one))).toBe('answered accept')
    expect(await retry(one, await ask(other))).toBe('answered accept')
    // The key is the one in the object's storage: a handler given it outright takes the state too.
    const secret = await storedSecret()
    expect(secret).toMatch(/^[0-9a-f]{64}$/)
    const server = new a.McpServer({ name: 'confirm', version: '1' }).tool('confirm', { description: 'Asks first' }, () => 'outright')
    const outright = createFetchHandler(server, { allowedHosts: '*', requestState: { secret: secret as string } })
    expect(await retry(outright, await ask(one))).toBe('outright')
  })

  it('makes the key once, keeps it across restarts, and gives concurrent first callers the same one', async () => {
    const name = `keys-${crypto.randomUUID()}`
    expect(await storedSecret(name)).toBeUndefined()
    const keys = await Promise.all([hubObject(name).requestStateSecret(), hubObject(name).requestStateSecret(), hubObject(name).requestStateSecret()])
    expect(new Set(keys).size).toBe(1)
    await abortAllDurableObjects()
    expect(await hubObject(name).requestStateSecret()).toBe(keys[0])
    expect(await storedSecret(name)).toBe(keys[0])
  })

  it('reads the key once per isolate: later handlers use what the first read', async () => {
    // An object no handler has read yet: the cache of isolate `a` is empty for it.
    const name = `keys-${crypto.randomUUID()}`
    const first = a.durableSharedSecret({ namespace: () => env.MCP_HUB, name })
    const key = await first()
    // Were it read again, the object would now make a new one.
    await inside(name, (storage) => storage.kv.delete('request-state-secret'))
    expect(await a.durableSharedSecret({ namespace: () => env.MCP_HUB, name })()).toBe(key)
  })

  it('yields to an explicit secret', async () => {
    const secret = 'an-explicit-secret-0123456789abcdef-0123'
    const state = await ask(through(confirmWorker(a), { ...bare, MCP_REQUEST_STATE_SECRET: secret }))
    const server = new a.McpServer({ name: 'confirm', version: '1' }).tool('confirm', { description: 'Asks first' }, () => 'explicit')
    expect(await retry(createFetchHandler(server, { allowedHosts: '*', requestState: { secret } }), state)).toBe('explicit')
    expect(await retry(through(confirmWorker(a), bare), state)).toMatch(/another requestState secret/)
  })
})

describe('single-use requestStates in Durable Objects', () => {
  it('serves a state once across isolates, turned on by the var or the option', async () => {
    const secret = 'a-shared-secret-for-single-use-0123456789'
    for (const [options, bindings] of [[{}, { ...bare, MCP_REQUEST_STATE_SECRET: secret, MCP_REQUEST_STATE_SINGLE_USE: 'true' }], [{ requestState: { singleUse: true } }, { ...bare, MCP_REQUEST_STATE_SECRET: secret }]] as const) {
      const one = through(confirmWorker(a, options), bindings)
      const other = through(confirmWorker(b, options), bindings)
      const state = await ask(one)
      expect(await retry(other, state)).toBe('answered accept')
      expect(await retry(one, state)).toMatch(/used already/)
      expect(await retry(other, state)).toMatch(/used already/)
    }
  })

  it('claims an id once, atomically, and sweeps claims whose states have expired', async () => {
    const name = `used-${crypto.randomUUID()}-`
    const stores = [durableUsedStates({ namespace: () => env.MCP_HUB, name }), durableUsedStates({ namespace: () => env.MCP_HUB, name })]
    const id = crypto.randomUUID()
    const claims = await Promise.all([...stores, ...stores].map((s) => s.claim(id, Date.now() + 60_000)))
    expect(claims.filter(Boolean)).toHaveLength(1)

    // Two ids on one object (of another name, which holds nothing else): one expires at once, one in an hour.
    const sweeping = durableUsedStates({ namespace: () => env.MCP_HUB, name: `${name}sweep-` })
    const soon = `${id}-soon`
    const owner = `${name}sweep-${shardOf(soon, 4)}`
    let kept = ''
    for (let i = 0; !kept; i++) if (shardOf(`${id}-${i}`, 4) === shardOf(soon, 4)) kept = `${id}-${i}`
    const later = Date.now() + 3_600_000
    const soonUntil = Date.now() + 500
    expect(await sweeping.claim(kept, later)).toBe(true)
    expect(await sweeping.claim(soon, soonUntil)).toBe(true)
    const rows = () => inside(owner, (storage) => storage.sql.exec('SELECT id FROM used_states ORDER BY id').toArray().map((r) => r.id))
    const alarm = () => inside(owner, (storage) => storage.getAlarm())
    expect(await rows()).toEqual([kept, soon].sort())
    expect(await alarm()).toBe(soonUntil) // moved up to the earliest expiry
    // Past it (workerd may have run the alarm by itself by now: the outcome is the same).
    await new Promise((r) => setTimeout(r, 600))
    expect(await runDurableObjectAlarm(hubObject(owner))).toBe(true)
    expect(await rows()).toEqual([kept])
    // The next sweep is due when the kept claim expires; until then it still counts as used.
    expect(await alarm()).toBe(later)
    expect(await sweeping.claim(kept, later)).toBe(false)
  })
})

describe('the single-use claims an McpHub object keeps', () => {
  afterEach(() => void vi.useRealTimers())
  const rows = (name: string) => inside(name, (storage) => storage.sql.exec('SELECT id, until FROM used_states ORDER BY id').toArray())

  it('by default in the objects mcp-used-states-0 to 3, by the id\'s shard', async () => {
    const id = crypto.randomUUID()
    const until = Date.now() + 60_000
    expect(await durableUsedStates({ namespace: () => env.MCP_HUB }).claim(id, until)).toBe(true)
    expect(await rows(`mcp-used-states-${shardOf(id, 4)}`)).toContainEqual({ id, until })
  })

  it('takes an id again from the moment its claim expires, though not yet swept', async () => {
    // The object's clock held at `now`; one event, so the sweep the past expiry asks for cannot come between.
    vi.useFakeTimers({ toFake: ['Date'] })
    const now = Date.now()
    const claims = await runInDurableObject(hubObject(`used-${crypto.randomUUID()}`), async (hub: McpHub) => [
      await hub.claimState('a', now + 1), await hub.claimState('a', now + 60_000),
      await hub.claimState('b', now), await hub.claimState('b', now + 60_000), await hub.claimState('b', now + 60_000),
    ])
    expect(claims).toEqual([true, false, true, true, false])
  })

  it('keeps the sweep due at the earliest expiry when a later claim comes', async () => {
    const name = `used-${crypto.randomUUID()}`
    const soon = Date.now() + 60_000
    expect(await hubObject(name).claimState('soon', soon)).toBe(true)
    expect(await hubObject(name).claimState('later', soon + 3_600_000)).toBe(true)
    expect(await inside(name, (storage) => storage.getAlarm())).toBe(soon)
  })

  it('leaves no sweep due once the last claim is swept', async () => {
    const name = `used-${crypto.randomUUID()}`
    expect(await hubObject(name).claimState('soon', Date.now() + 300)).toBe(true)
    await new Promise((r) => setTimeout(r, 400))
    // Past it (workerd may have run the alarm by itself by now: the outcome is the same).
    await runDurableObjectAlarm(hubObject(name))
    expect(await rows(name)).toEqual([])
    expect(await inside(name, (storage) => storage.getAlarm())).toBeNull()
  })
})
