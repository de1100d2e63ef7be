/** The Workers adapter inside workerd: listen streams fed by McpHub Durable Objects. */
import { abortAllDurableObjects, createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker, type McpHub } from '../../adapters/cloudflare/index.js'
import { ALL_TOPICS, hubBackplane, tagOf, TOPICS_HEADER } from '../../adapters/cloudflare/backplane.js'
import { until } from '../helpers/async.js'
import { shardOf } from '../../src/core.js'
import { McpServer, resourceUpdated } from '../../src/index.js'
import { mcpRequest, sseReader } from './sse.js'

const worker = exports.default
const listen = async (notifications: Record<string, unknown>, id: string | number) => {
  const res = await worker.fetch(mcpRequest('subscriptions/listen', { notifications }, id))
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return sseReader(res.body!)
}
const hub = (name: string) => env.MCP_HUB.get(env.MCP_HUB.idFromName(name))
const socketsOf = (name: string) => runInDurableObject(hub(name), async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().length)
// With MCP_HUB_RELAYS (.ci/run's relays leg) a shard's streams are on its relays, `mcp-hub-N.0` and on.
const relays = Number(env.MCP_HUB_RELAYS ?? 0)
const hubsOf = (shard: number) => (relays === 0 ? [`mcp-hub-${shard}`] : Array.from({ length: relays }, (_, i) => `mcp-hub-${shard}.${i}`))
const hubSockets = async (shard: number) => (await Promise.all(hubsOf(shard).map(socketsOf))).reduce((a, b) => a + b, 0)
const allSockets = async () => (await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)
/** `count` topics of resources that fall on hub `shard` (of 4). */
const topicsOn = (shard: number, count: number, label: string) => {
  const topics: string[] = []
  for (let i = 0; topics.length < count; i++) {
    const { topic } = resourceUpdated(`test://${label}/${i}`)
    if (shardOf(topic, 4) === shard) topics.push(topic)
  }
  return topics
}
const uriOn = (shard: number, label: string) => topicsOn(shard, 1, label)[0]!.slice('resource:'.length)

describe('McpHub fan-out', () => {
  it('a listen stream receives a change published by a separate request', async () => {
    const stream = await listen({ toolsListChanged: true }, 'w-1')
    expect(await stream.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'w-1' } } })
    const call = await worker.fetch(mcpRequest('tools/call', { name: 'test_trigger_tool_change', arguments: {} }))
    expect((await call.json() as any).result.content[0].text).toMatch(/test_dynamic_tool/)
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'w-1' } } })
    await stream.cancel()
  })

  it('spreads many resource subscriptions over shards and sockets, and delivers each only to its subscribers', async () => {
    const uris = Array.from({ length: 25 }, (_, i) => `test://template/many${i}/data`)
    const stream = await listen({ resourceSubscriptions: uris }, 'w-2')
    expect((await stream.next()).params.notifications.resourceSubscriptions).toHaveLength(25)
    const other = await listen({ resourceSubscriptions: ['test://template/other/data'] }, 'w-3')
    await other.next()
    // Another Worker of the same deployment, outside any request (a cron trigger, say).
    const server = new McpServer({ name: 'publisher', version: '1' }).tool('t', { description: 't' }, () => '')
    const notify = createWorker<Cloudflare.Env>(server).notify(env)
    for (const uri of [uris[3]!, uris[17]!, 'test://template/nobody/data']) await notify.resourceUpdated(uri)
    const got = [await stream.next(), await stream.next()].map((m) => m.params.uri).sort()
    expect(got).toEqual([uris[17], uris[3]].sort())
    await notify.resourceUpdated('test://template/other/data')
    expect((await other.next()).params.uri).toBe('test://template/other/data')
    await stream.cancel()
    await other.cancel()
  })

  it('holds at most one socket per hub however many URIs a listen follows (1,000 here), and sends it only its own', async () => {
    const uris = Array.from({ length: 1000 }, (_, i) => `test://template/k${i}/data`)
    const before = await allSockets()
    const stream = await listen({ resourceSubscriptions: uris }, 'w-wide')
    expect((await stream.next()).params.notifications.resourceSubscriptions).toHaveLength(1000)
    // One per shard (Cloudflare would refuse a hundred subrequests); fewer if an earlier test's are still closing.
    expect(await allSockets() - before).toBeLessThanOrEqual(4)
    const server = new McpServer({ name: 'publisher', version: '1' }).tool('t', { description: 't' }, () => '')
    const notify = createWorker<Cloudflare.Env>(server).notify(env)
    // On each hub a stranger's change goes first, on the socket that carries the stream's own: had it passed
    // the stream's filter, it would arrive before them.
    const mine = uris.filter((_, i) => i % 10 === 0)
    for (const shard of [0, 1, 2, 3]) await notify.resourceUpdated(uriOn(shard, 'stranger'))
    for (const uri of mine) await notify.resourceUpdated(uri)
    const got: string[] = []
    while (got.length < mine.length) got.push((await stream.next()).params.uri)
    expect(got.sort()).toEqual([...mine].sort())
    await stream.cancel()
  })

  it('tags a socket with its topics on a hub where it has at most 10, and on another takes the whole hub, with no duplicates', async () => {
    const name = `tags-${crypto.randomUUID()}-`
    const backplane = hubBackplane({ namespace: () => env.MCP_HUB, name })
    const few = topicsOn(0, 5, 'few')
    const many = topicsOn(0, 15, 'many')
    const stranger = topicsOn(0, 1, 'stranger')[0]!
    const got = { few: [] as string[], many: [] as string[] }
    const a = await backplane.subscribe(few, (e) => void got.few.push(e.topic!))
    const b = await backplane.subscribe(many, (e) => void got.many.push(e.topic!))
    const hub0 = env.MCP_HUB.get(env.MCP_HUB.idFromName(`${name}0`))
    expect(await runInDurableObject(hub0, async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().length)).toBe(2)
    const publish = (topic: string) => hub0.publish(tagOf(topic), JSON.stringify({ topic }))
    expect(await publish(few[0]!)).toBe(2) // its own socket and the hub-wide one, each once
    expect(await publish(many[0]!)).toBe(1)
    expect(await publish(stranger)).toBe(1) // the hub-wide socket takes everything; the listen stream filters
    await until(() => got.many.length === 3)
    expect(got).toEqual({ few: [few[0]], many: [few[0], many[0], stranger] })
    // The hub-wide tag stands alone on a socket, so no socket is reached twice by one publish.
    const mixed = await hub0.fetch('https://hub/subscribe', { headers: { upgrade: 'websocket', [TOPICS_HEADER]: JSON.stringify([ALL_TOPICS, few[0]]) } })
    expect(mixed.status).toBe(400)
    await a.close()
    await b.close()
  })

  it('frees the hub sockets when the client goes away', async () => {
    const before = await allSockets()
    const stream = await listen({ toolsListChanged: true, promptsListChanged: true }, 'w-4')
    await stream.next()
    expect(await allSockets()).toBeGreaterThan(before)
    await stream.cancel()
    // The hub learns of a closed socket asynchronously: wait for it, within a bound.
    for (let i = 0; i < 250 && (await allSockets()) !== before; i++) await new Promise((r) => setTimeout(r, 20))
    expect(await allSockets()).toBe(before)
  })

  it('reconnects after the hub drops its sockets, and sends the stream a refetch cue', async () => {
    const stream = await listen({ promptsListChanged: true }, 'w-5')
    await stream.next()
    await abortAllDurableObjects() // the hubs restart and their sockets are gone
    expect(await stream.next(10_000)).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'w-5' } } })
    // And it is subscribed again.
    await worker.fetch(mcpRequest('tools/call', { name: 'test_trigger_prompt_change', arguments: {} }))
    expect((await stream.next()).method).toBe('notifications/prompts/list_changed')
    await stream.cancel()
  })

  it('gives handlers the Worker env, and keeps the Worker alive for what they hand to waitUntil', async () => {
    const later = { done: false }
    const server = new McpServer({ name: 'env', version: '1' }).tool('bindings', { description: 'lists bindings' }, (_a, ctx) => {
      ctx.waitUntil(new Promise((r) => setTimeout(r, 50)).then(() => void (later.done = true)))
      return Object.keys(ctx.env as object).sort().join(',')
    })
    const ctx = createExecutionContext()
    const res = await createWorker<Cloudflare.Env>(server).fetch(mcpRequest('tools/call', { name: 'bindings', arguments: {} }), env, ctx)
    expect((await res.json() as any).result.content[0].text).toContain('MCP_HUB')
    // The answer did not wait for it; the execution context does.
    expect(later.done).toBe(false)
    await waitOnExecutionContext(ctx)
    expect(later.done).toBe(true)
  })
})
