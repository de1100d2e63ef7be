/** The Workers adapter inside workerd: listen streams fed by McpHub Durable Objects. */
import { abortAllDurableObjects, createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker, type McpHub } from '../../adapters/cloudflare/index.js'
import { tagOf } from '../../adapters/cloudflare/backplane.js'
import { McpServer, resourceUpdated, shardOf } from '../../src/index.js'
import { mcpRequest, sseReader } from './sse.js'

const worker = exports.default
const listen = async (notifications: Record<string, unknown>, id: string | number) => {
  const res = await worker.fetch(mcpRequest('subscriptions/listen', { notifications }, id))
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return sseReader(res.body!)
}
const hub = (shard: number) => env.MCP_HUB.get(env.MCP_HUB.idFromName(`mcp-hub-${shard}`))
const hubSockets = (shard: number) => runInDurableObject(hub(shard), async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().length)
const allSockets = async () => (await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)

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

  it('carries 64 URIs on sockets of at most 10 tags, and a publish reaches only the socket of its tag', async () => {
    const uris = Array.from({ length: 64 }, (_, i) => `test://template/wide${i}/data`)
    const perShard = [0, 1, 2, 3].map((s) => uris.filter((u) => shardOf(resourceUpdated(u).topic, 4) === s).length)
    expect(Math.max(...perShard)).toBeGreaterThan(10)
    const before = await allSockets()
    const stream = await listen({ resourceSubscriptions: uris }, 'w-wide')
    expect((await stream.next()).params.notifications.resourceSubscriptions).toHaveLength(64)
    expect(await allSockets() - before).toBe(perShard.reduce((n, count) => n + Math.ceil(count / 10), 0))
    for (const uri of [uris[0]!, uris[41]!, uris[63]!]) {
      const { topic } = resourceUpdated(uri)
      const reached = await hub(shardOf(topic, 4)).publish(tagOf(topic), JSON.stringify(resourceUpdated(uri)))
      expect(reached).toBe(1)
      expect((await stream.next()).params.uri).toBe(uri)
    }
    const nobody = resourceUpdated('test://wide/none').topic
    expect(await hub(shardOf(nobody, 4)).publish(tagOf(nobody), '{}')).toBe(0)
    // Every URI is delivered, whichever socket carries it.
    const server = new McpServer({ name: 'publisher', version: '1' }).tool('t', { description: 't' }, () => '')
    const notify = createWorker<Cloudflare.Env>(server).notify(env)
    for (const uri of uris) await notify.resourceUpdated(uri)
    const got: string[] = []
    while (got.length < uris.length) got.push((await stream.next()).params.uri)
    expect(got.sort()).toEqual([...uris].sort())
    await stream.cancel()
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
