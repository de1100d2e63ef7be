/**
 * hubBackplane with relays: streams spread over a shard's relay hubs, never past the bound on one object;
 * the shard's hub passes each publish on to the relays that hold streams, in order; a relay that is lost or
 * misses a publish costs its streams one resync; a relay with no streams leaves the tree. Real hub objects
 * under workerd, each test with a tree of its own.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { McpHub } from '../../adapters/cloudflare/index.js'
import { hubBackplane, tagOf, type HubBackplaneOptions } from '../../adapters/cloudflare/backplane.js'
import { dropRelay } from '../../adapters/cloudflare/hub-tree.js'
import { Overloaded } from '../../src/core.js'
import { createFetchHandler, isResync, McpServer, type ChangeEvent, type Resync } from '../../src/index.js'
import { mcpRequest, sseReader } from './sse.js'

const hubNamed = (name: string) => env.MCP_HUB.get(env.MCP_HUB.idFromName(name))
const sockets = (name: string) => runInDurableObject(hubNamed(name), async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().length)
/** The relays a root passes publishes on to, by name, and the number of its last publish. */
const rootState = (name: string) => runInDurableObject(hubNamed(name), async (_hub: McpHub, state: DurableObjectState) => {
  const entries = [...state.storage.kv.list<string>({ prefix: 'tree:relay:' })].map(([key, id]) => [key.slice('tree:relay:'.length), id] as const).sort()
  return { relays: entries.map(([relay]) => relay), ids: entries.map(([, id]) => id), seq: state.storage.kv.get<number>('tree:seq') }
})

/** What a restart of a hub does (ctx.abort): its fields and sockets gone, its storage kept. */
async function restart(name: string): Promise<void> {
  const aborted = await runInDurableObject(hubNamed(name), async (_hub: McpHub, state: DurableObjectState) => state.abort('restarting')).then(() => undefined, (e: unknown) => e)
  expect(String(aborted)).toContain('restarting')
}

async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const end = Date.now() + 5000; !(await check()); await scheduler.wait(5)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
  }
}

/** A tree of its own: one shard, whose root is `root` and whose relays are `root.0` and on. */
function ownTree(options: Partial<HubBackplaneOptions>) {
  const name = `tree-${crypto.randomUUID()}-`
  const root = `${name}0`
  const relays = Array.from({ length: options.relays ?? 0 }, (_, i) => `${root}.${i}`)
  return { root, relays, backplane: hubBackplane({ namespace: () => env.MCP_HUB, name, shards: 1, ...options }) }
}

function heard() {
  const got: string[] = []
  return { got, listener: (e: ChangeEvent | Resync) => void got.push(isResync(e) ? 'resync' : String(e.data?.n ?? e.topic)) }
}

const topic = 'resource:test://tree/1'

describe('a hub tree', () => {
  it('spreads streams over the relays, at most maxSocketsPerHub each and none on the root, and refuses the one past them all as the server\'s limit', async () => {
    const { root, relays, backplane } = ownTree({ relays: 4, maxSocketsPerHub: 3 })
    const subscriptions = await Promise.all(Array.from({ length: 12 }, () => backplane.subscribe([topic], () => {})))
    const held = await Promise.all(relays.map(sockets))
    expect(held).toEqual([3, 3, 3, 3])
    expect(await sockets(root)).toBe(0)
    expect((await rootState(root)).relays).toEqual(relays)
    const refused = await backplane.subscribe([topic], () => {}).then(() => undefined, (e: unknown) => e)
    expect(refused).toBeInstanceOf(Overloaded)
    expect(refused).toMatchObject({ fault: 'server', retryAfterSec: 30, message: 'Every hub this listen could use holds its maximum of 3 streams' })
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('picks a stream\'s relay at random, and says at every upgrade that a hub holds 25,000 sockets at most unless told otherwise', async () => {
    // The namespace as the backplane sees it, passing every upgrade on as it came and noting its headers.
    const upgrades: Headers[] = []
    const namespace = {
      idFromName: (name: string) => env.MCP_HUB.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = env.MCP_HUB.get(id)
        return { fetch: (url: string, init: RequestInit) => (upgrades.push(new Headers(init.headers)), stub.fetch(url, init)) }
      },
    } as unknown as DurableObjectNamespace<McpHub>
    const { relays } = ownTree({ relays: 4 })
    const backplane = hubBackplane({ namespace: () => namespace, name: relays[0]!.slice(0, -'0.0'.length), shards: 1, relays: 4 })
    const subscriptions = await Promise.all(Array.from({ length: 40 }, () => backplane.subscribe([topic], () => {})))
    // Each relay empty with odds (3/4)^40, 1 in 100,000.
    for (const held of await Promise.all(relays.map(sockets))) expect(held).toBeGreaterThan(0)
    expect(new Set(upgrades.map((h) => h.get('x-mcp-max-sockets')))).toEqual(new Set(['25000']))
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('fails a subscription a relay refuses for another reason than being full, with its status and why', async () => {
    const { backplane } = ownTree({ relays: 2, binding: 'NOPE' })
    await expect(backplane.subscribe([topic], () => {})).rejects.toThrow('the hub refused the subscription (502: The relay could not join its root: the hub has no binding NOPE)')
  })

  it('delivers every publish to every stream, in order, with one call from the root per relay that holds streams', async () => {
    const { root, backplane } = ownTree({ relays: 4, maxSocketsPerHub: 3 })
    const ears = Array.from({ length: 10 }, heard)
    const subscriptions = await Promise.all(ears.map((ear) => backplane.subscribe([topic], ear.listener)))
    // Published all at once: the root's calls to one relay still go one after another.
    await Promise.all(Array.from({ length: 20 }, (_, n) => backplane.publish({ topic, data: { n } })))
    await eventually(() => ears.every((ear) => ear.got.length === 20), 'every publish on every stream')
    const order = ears[0]!.got
    expect(new Set(order).size).toBe(20)
    for (const ear of ears) expect(ear.got).toEqual(order)
    // Another topic's streams on the same relays hear none of it; the publish counts its sockets.
    expect(await hubNamed(root).publish(tagOf(topic), JSON.stringify({ topic, data: { n: 'direct' } }))).toBe(10)
    expect((await rootState(root)).seq).toBe(21)
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('filters by topic on the relays too', async () => {
    const { backplane } = ownTree({ relays: 2 })
    const [a, b] = [heard(), heard()]
    const subscriptions = [await backplane.subscribe([topic], a.listener), await backplane.subscribe(['resource:test://tree/2'], b.listener)]
    await backplane.publish({ topic: 'resource:test://tree/2' })
    await backplane.publish({ topic })
    await eventually(() => a.got.length === 1 && b.got.length === 1, 'both')
    expect([a.got, b.got]).toEqual([[topic], ['resource:test://tree/2']])
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('costs the streams of a relay that dropped them one resync; they come back, and hear every later publish', async () => {
    const { relays, backplane } = ownTree({ relays: 4, maxSocketsPerHub: 2, onError: () => {} })
    const ears = Array.from({ length: 8 }, heard)
    const subscriptions = await Promise.all(ears.map((ear) => backplane.subscribe([topic], ear.listener)))
    await backplane.publish({ topic, data: { n: 1 } })
    await eventually(() => ears.every((ear) => ear.got.length === 1), 'the first publish')
    await restart(relays[0]!)
    // Every other relay is full: the two streams come back to the relay they lost.
    await eventually(() => ears.filter((ear) => ear.got.includes('resync')).length === 2, 'two resyncs')
    await eventually(async () => (await sockets(relays[0]!)) === 2, 'the streams back on their relay')
    await backplane.publish({ topic, data: { n: 2 } })
    await eventually(() => ears.every((ear) => ear.got.at(-1) === '2'), 'the publish after')
    expect(ears.map((ear) => ear.got.join()).sort()).toEqual([...Array(6).fill('1,2'), '1,resync,2', '1,resync,2'].sort())
    for (const relay of relays) expect(await sockets(relay)).toBeLessThanOrEqual(2)
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('costs every stream one resync when the root and every relay restart at once, and then delivers to all of them again', async () => {
    const { root, relays, backplane } = ownTree({ relays: 4, maxSocketsPerHub: 2, onError: () => {} })
    const ears = Array.from({ length: 8 }, heard)
    const subscriptions = await Promise.all(ears.map((ear) => backplane.subscribe([topic], ear.listener)))
    await Promise.all([root, ...relays].map(restart))
    await eventually(() => ears.every((ear) => ear.got.includes('resync')), 'a resync on every stream')
    await eventually(async () => (await Promise.all(relays.map(sockets))).reduce((a, b) => a + b) === 8, 'every stream back')
    await backplane.publish({ topic, data: { n: 1 } })
    await eventually(() => ears.every((ear) => ear.got.at(-1) === '1'), 'the publish after')
    expect(ears.map((ear) => ear.got)).toEqual(Array(8).fill(['resync', '1']))
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('keeps its streams through a relay\'s hibernation, without a resync', async () => {
    const { relays, backplane } = ownTree({ relays: 1, maxSocketsPerHub: 2 })
    const ear = heard()
    const subscription = await backplane.subscribe([topic], ear.listener)
    await evictDurableObject(hubNamed(relays[0]!))
    await backplane.publish({ topic, data: { n: 1 } })
    await eventually(() => ear.got.length === 1, 'the publish')
    // Its count of sockets came back from the sockets themselves: one more, then full.
    const second = await backplane.subscribe([topic], () => {})
    await expect(backplane.subscribe([topic], () => {})).rejects.toBeInstanceOf(Overloaded)
    expect(ear.got).toEqual(['1'])
    await Promise.all([subscription.close(), second.close()])
  })

  it('gives a relay\'s streams a resync before the next publish when it missed one, and drops a publish it is past', async () => {
    const { root, relays, backplane } = ownTree({ relays: 1 })
    const ear = heard()
    const subscription = await backplane.subscribe([topic], ear.listener)
    await backplane.publish({ topic, data: { n: 1 } })
    // A publish the root numbered that never reached the relay (the call failed, the root was evicted half-way).
    await runInDurableObject(hubNamed(root), async (_hub: McpHub, state: DurableObjectState) => {
      state.storage.kv.put('tree:seq', state.storage.kv.get<number>('tree:seq')! + 1)
    })
    await backplane.publish({ topic, data: { n: 3 } })
    await eventually(() => ear.got.length === 3, 'the resync and the publish')
    expect(ear.got).toEqual(['1', 'resync', '3'])
    expect(await hubNamed(relays[0]!).relay(tagOf(topic), JSON.stringify({ topic, data: { n: 'late' } }), 2)).toEqual({ sent: 0 })
    // A call the root made again (its stub broke): the relay is at that number already.
    expect(await hubNamed(relays[0]!).relay(tagOf(topic), JSON.stringify({ topic, data: { n: 'again' } }), 3)).toEqual({ sent: 0 })
    await backplane.publish({ topic, data: { n: 4 } })
    await eventually(() => ear.got.length === 4, 'the next publish')
    expect(ear.got).toEqual(['1', 'resync', '3', '4'])
    await subscription.close()
  })

  it('lets a relay whose streams all left leave at the next publish, and join again with its next stream', async () => {
    const { root, relays, backplane } = ownTree({ relays: 1 })
    const first = await backplane.subscribe([topic], () => {})
    // One publish passed on first: the number the relay had does not outlast its leaving.
    await backplane.publish({ topic })
    await eventually(async () => (await runInDurableObject(hubNamed(relays[0]!), async (_hub: McpHub, state: DurableObjectState) => state.storage.kv.get('tree:last'))) === 1, 'the number kept')
    await first.close()
    await eventually(async () => (await sockets(relays[0]!)) === 0, 'the socket to close')
    expect((await rootState(root)).relays).toEqual(relays)
    await backplane.publish({ topic })
    expect((await rootState(root)).relays).toEqual([])
    // With no relay left, a publish calls none.
    expect(await hubNamed(root).publish(tagOf(topic), JSON.stringify({ topic }))).toBe(0)
    const ear = heard()
    const again = await backplane.subscribe([topic], ear.listener)
    expect((await rootState(root)).relays).toEqual(relays)
    await backplane.publish({ topic, data: { n: 1 } })
    await eventually(() => ear.got.length === 1, 'the publish')
    expect(ear.got).toEqual(['1'])
    await again.close()
  })

  it('joins a relay to its root once, with its first stream, and keeps a registration made again while an older one is dropped', async () => {
    const { root, relays, backplane } = ownTree({ relays: 1 })
    const first = await backplane.subscribe([topic], () => {})
    const { ids: [id] } = await rootState(root)
    const second = await backplane.subscribe([topic], () => {})
    expect((await rootState(root)).ids).toEqual([id])
    // The relay left under `id` and joined again under another before the root read its answer.
    await hubNamed(root).join('MCP_HUB', relays[0]!, 'again')
    await runInDurableObject(hubNamed(root), async (_hub: McpHub, state: DurableObjectState) => dropRelay(state.storage, relays[0]!, id!))
    expect(await rootState(root)).toMatchObject({ relays, ids: ['again'] })
    await Promise.all([first.close(), second.close()])
  })

  it('does not leave while an upgrade waits for its join, and keeps the number of a publish that came meanwhile', async () => {
    const { root, relays: [name] } = ownTree({ relays: 1 })
    const relay = hubNamed(name!)
    const tree = JSON.stringify({ binding: 'MCP_HUB', root, relay: name })
    const upgrading = relay.fetch('https://hub/subscribe', { headers: { upgrade: 'websocket', 'x-mcp-topics': JSON.stringify([topic]), 'x-mcp-tree': tree } })
    // Calls on one stub arrive in order: this one while the upgrade waits for the root.
    expect(await relay.relay(topic, JSON.stringify({ topic }), 1)).toEqual({ sent: 0 })
    const ws = (await upgrading).webSocket!
    ws.accept()
    expect((await rootState(root)).relays).toEqual([name])
    // Stored once its (empty) send has run, after the answer.
    await eventually(async () => (await runInDurableObject(relay, async (_hub: McpHub, state: DurableObjectState) => state.storage.kv.get('tree:last'))) === 1, 'the number kept')
    ws.close()
  })

  it('refuses at the door a bad bound, a bad place in the tree, and a binding the hub does not have', async () => {
    const hub = hubNamed(`door-${crypto.randomUUID()}`)
    const upgrade = (headers: Record<string, string>) => hub.fetch('https://hub/subscribe', { headers: { upgrade: 'websocket', 'x-mcp-topics': '["a"]', ...headers } })
    for (const max of ['0', '32001', 'ten', '1.5', '']) {
      const res = await upgrade({ 'x-mcp-max-sockets': max })
      expect({ max, status: res.status, body: await res.text() }).toEqual({ max, status: 400, body: 'x-mcp-max-sockets must be a whole number from 1 to 32000' })
    }
    const place = (binding: unknown, root: unknown, relay: unknown) => JSON.stringify({ binding, root, relay })
    for (const tree of ['not json', '{}', 'null', place('MCP_HUB', 'r', undefined), place('MCP_HUB', '', 'x'), place('', 'r', 'x'), place('MCP_HUB', 'r', 'x'.repeat(257)), place(1, 'r', 'x')]) {
      const res = await upgrade({ 'x-mcp-tree': tree })
      expect({ tree, status: res.status, body: await res.text() }).toEqual({ tree, status: 400, body: 'x-mcp-tree must be a JSON object of binding, root and relay names' })
    }
    const lost = await upgrade({ 'x-mcp-tree': JSON.stringify({ binding: 'NOPE', root: 'r', relay: 'x' }) })
    expect({ status: lost.status, body: await lost.text() }).toEqual({ status: 502, body: 'The relay could not join its root: the hub has no binding NOPE' })
  })

  it('takes relays from 0 to 1000 and maxSocketsPerHub from 1 to 32000, whole', () => {
    for (const relays of [-1, 1.5, 1001, Number.NaN]) {
      expect(() => hubBackplane({ namespace: () => env.MCP_HUB, relays })).toThrow('hubBackplane: relays must be a whole number from 0 to 1000')
    }
    for (const maxSocketsPerHub of [0, 2.5, 32_001]) {
      expect(() => hubBackplane({ namespace: () => env.MCP_HUB, maxSocketsPerHub })).toThrow('hubBackplane: maxSocketsPerHub must be a whole number from 1 to 32000')
    }
  })

  it('answers a listen the full tree cannot take with 503, Retry-After and the server\'s limit', async () => {
    const { backplane } = ownTree({ relays: 1, maxSocketsPerHub: 1 })
    const server = new McpServer({ name: 'full', version: '1' }).tool('t', { description: 't' }, () => '')
    const handler = createFetchHandler(server, { allowedHosts: '*', backplane })
    const listen = () => handler(mcpRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }))
    const first = await listen()
    const stream = sseReader(first.body!)
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    const second = await listen()
    expect({ status: second.status, retryAfter: second.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '30' })
    expect(await second.json()).toMatchObject({ error: { code: -32000, message: 'Every hub this listen could use holds its maximum of 1 streams' } })
    await stream.cancel()
  })
})
