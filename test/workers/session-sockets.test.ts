/**
 * The hub sockets a listener holds (issue 45, finding 3): however many subscriptions it makes, one per hub
 * it listens on, at most `shards`; a 2025 session's GET stream, which subscribes once per URI its session
 * follows, the same. Each test has hub objects of its own.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { McpHub } from '../../adapters/cloudflare/index.js'
import { hubBackplane } from '../../adapters/cloudflare/backplane.js'
import { createFetchHandler, isResync, memoryTaskStore, sessions, tasks, type ChangeEvent, type Resync, type Subscription } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { sseReader } from './sse.js'

const SHARDS = 2
/** Hubs of the test's own, and the tags of every socket they hold. */
function ownHubs() {
  const name = `ss-${crypto.randomUUID()}-`
  const backplane = hubBackplane({ namespace: () => env.MCP_HUB, name, shards: SHARDS })
  const sockets = async () => {
    const all: string[][] = []
    for (let shard = 0; shard < SHARDS; shard++) {
      const hub = env.MCP_HUB.get(env.MCP_HUB.idFromName(`${name}${shard}`))
      all.push(...await runInDurableObject(hub, async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().map((ws) => state.getTags(ws))))
    }
    return all
  }
  return { backplane, sockets }
}

/** Polls on workerd's own clock; fails after 5 s (a bound for a broken run). */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const end = Date.now() + 5000; !(await check()); await scheduler.wait(5)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
  }
}

const topic = (i: number) => `resource:test://template/${i}/data`

describe("a listener's hub sockets", () => {
  it('are one per hub however many subscriptions it makes, together or one by one; each closes on its own, the last closes the socket', async () => {
    const { backplane, sockets } = ownHubs()
    const got: string[] = []
    const listener = (e: ChangeEvent | Resync) => void got.push(isResync(e) ? 'resync' : e.topic)
    const together = await Promise.all(Array.from({ length: 5 }, (_, i) => backplane.subscribe([topic(i)], listener)))
    const oneByOne: Subscription[] = []
    for (let i = 5; i < 30; i++) oneByOne.push(await backplane.subscribe([topic(i)], listener))
    await eventually(async () => (await sockets()).length <= SHARDS, 'the replaced sockets to close')
    await backplane.publish({ topic: topic(29) })
    await eventually(() => got.includes(topic(29)), 'a publish on the last topic')
    // Given back, a topic may still come on the shared socket: the listener filters (session-stream.ts).
    for (const s of oneByOne) await s.close()
    await backplane.publish({ topic: topic(0) })
    await eventually(() => got.includes(topic(0)), 'a publish on a topic still subscribed')
    expect((await sockets()).length).toBeLessThanOrEqual(SHARDS)
    for (const s of together) await s.close()
    await eventually(async () => (await sockets()).length === 0, 'every socket to close')
  })
})

describe("a 2025 session's GET stream on Workers", () => {
  it('holds at most `shards` hub sockets whatever its session subscribes to, and none once it closes', async () => {
    const { backplane, sockets } = ownHubs()
    const handler = createFetchHandler(createEverythingServer(), {
      allowedHosts: '*', backplane, store: memoryTaskStore(), sessions: sessions(), extensions: [tasks()],
      requestState: { secret: 'workers-test-secret-0123456789abcdef' },
    })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
    const post = async (body: object, session?: string) =>
      handler(new Request('https://mcp.example.com/mcp', { method: 'POST', headers: session ? { ...headers, 'mcp-session-id': session } : headers, body: JSON.stringify(body) }))
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'w', version: '1' } } })
    const session = init.headers.get('mcp-session-id')!
    const subscribe = async (id: number, uri: string, on = true) =>
      expect(await (await post({ jsonrpc: '2.0', id, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, session)).json()).toMatchObject({ result: {} })
    const get = await handler(new Request('https://mcp.example.com/mcp', { headers: { ...headers, 'mcp-session-id': session } }))
    expect(get.status).toBe(200)
    const stream = sseReader(get.body!)
    await eventually(async () => (await sockets()).length > 0, 'the stream to subscribe')
    for (let i = 0; i < 25; i++) await subscribe(i + 1, `test://template/${i}/data`)
    for (let i = 0; i < 25; i += 2) await subscribe(100 + i, `test://template/${i}/data`, false)
    await subscribe(200, 'test://watched-resource')
    // Followed on the session's topic, through the hub: the last is followed once its update comes.
    await post({ jsonrpc: '2.0', id: 201, method: 'tools/call', params: { name: 'test_update_watched_resource', arguments: {} } }, session)
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } })
    await eventually(async () => (await sockets()).length <= SHARDS, 'the replaced sockets to close')
    await stream.cancel()
    await eventually(async () => (await sockets()).length === 0, 'every socket to close')
  })
})
