/** The Workers adapter inside workerd: listen streams fed by McpHub Durable Objects. */
import { abortAllDurableObjects, createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker, type McpHub } from '../../adapters/cloudflare/index.js'
import { McpServer } from '../../src/index.js'
import { mcpRequest, sseReader } from './sse.js'

const worker = exports.default
const listen = async (notifications: Record<string, unknown>, id: string | number) => {
  const res = await worker.fetch(mcpRequest('subscriptions/listen', { notifications }, id))
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  return sseReader(res.body!)
}
const hubSockets = (shard: number) =>
  runInDurableObject(env.MCP_HUB.get(env.MCP_HUB.idFromName(`mcp-hub-${shard}`)), async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().length)

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
    const uris = Array.from({ length: 25 }, (_, i) => `test://many/${i}`)
    const stream = await listen({ resourceSubscriptions: uris }, 'w-2')
    expect((await stream.next()).params.notifications.resourceSubscriptions).toHaveLength(25)
    const other = await listen({ resourceSubscriptions: ['test://other'] }, 'w-3')
    await other.next()
    const server = new McpServer({ name: 'publisher', version: '1' }).tool('t', { description: 't' }, () => '')
    const publisher = createWorker(server)
    publisher.bind(env as unknown as Record<string, unknown>)
    for (const uri of [uris[3]!, uris[17]!, 'test://nobody']) await server.notify.resourceUpdated(uri)
    const got = [await stream.next(), await stream.next()].map((m) => m.params.uri).sort()
    expect(got).toEqual([uris[17], uris[3]].sort())
    await server.notify.resourceUpdated('test://other')
    expect((await other.next()).params.uri).toBe('test://other')
    await stream.cancel()
    await other.cancel()
  })

  it('frees the hub sockets when the client goes away', async () => {
    const before = (await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)
    const stream = await listen({ toolsListChanged: true, promptsListChanged: true }, 'w-4')
    await stream.next()
    const during = (await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)
    expect(during).toBeGreaterThan(before)
    await stream.cancel()
    for (let i = 0; i < 50; i++) {
      const now = (await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)
      if (now === before) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect((await Promise.all([0, 1, 2, 3].map(hubSockets))).reduce((a, b) => a + b, 0)).toBe(before)
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

  it('gives handlers the Worker env and execution context', async () => {
    const server = new McpServer({ name: 'env', version: '1' }).tool('bindings', { description: 'lists bindings' }, (_a, ctx) => {
      ctx.waitUntil(Promise.resolve())
      return Object.keys(ctx.env as object).sort().join(',')
    })
    const ctx = createExecutionContext()
    const res = await createWorker(server).fetch(mcpRequest('tools/call', { name: 'bindings', arguments: {} }), env as unknown as Record<string, unknown>, ctx)
    await waitOnExecutionContext(ctx)
    expect((await res.json() as any).result.content[0].text).toContain('MCP_HUB')
  })
})
