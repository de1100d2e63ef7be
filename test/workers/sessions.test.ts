/**
 * 2025 sessions in workerd: the session's state in task Durable Objects, a tool's question and the client's
 * answer (a separate request) meeting through McpHub, and the session's GET stream fed by it.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { sseReader } from './sse.js'

const worker = exports.default

function legacy(body: unknown, session?: string): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  if (session) headers['mcp-session-id'] = session
  return new Request('https://mcp.example.com/mcp', { method: 'POST', headers, body: JSON.stringify(body) })
}

async function initialize(): Promise<string> {
  const res = await worker.fetch(legacy({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'w', version: '1' } } }))
  expect(res.status).toBe(200)
  const body = await res.json() as any
  expect(body.result.capabilities.resources).toEqual({ listChanged: true, subscribe: true })
  return res.headers.get('mcp-session-id')!
}

describe('2025 sessions on Workers', () => {
  it("a tool's elicitation goes out on its stream; the answer, a request of its own, reaches it through the hub", async () => {
    const session = await initialize()
    const res = await worker.fetch(legacy({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_elicitation', arguments: { message: 'Who?' } } }, session))
    const stream = sseReader(res.body!)
    const asked = await stream.next()
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Who?' } })
    const answer = await worker.fetch(legacy({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { username: 'w', email: 'w@x.y' } } }, session))
    expect(answer.status).toBe(202)
    expect(await stream.next()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'User response: action=accept, content={"username":"w","email":"w@x.y"}' }] } })
  })

  it('keeps the log level and subscriptions in Durable Objects; the GET stream gets an update; DELETE ends it', async () => {
    const session = await initialize()
    expect(await (await worker.fetch(legacy({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, session))).json()).toMatchObject({ result: {} })
    const logged = sseReader((await worker.fetch(legacy({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_tool_with_logging', arguments: {} } }, session))).body!)
    expect(await logged.next()).toMatchObject({ method: 'notifications/message', params: { level: 'info', data: 'Tool execution started' } })
    await logged.cancel()
    expect(await (await worker.fetch(legacy({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'test://watched-resource' } }, session))).json()).toMatchObject({ result: {} })
    const get = await worker.fetch(new Request('https://mcp.example.com/mcp', { headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } }))
    expect(get.status).toBe(200)
    const stream = sseReader(get.body!)
    await new Promise((r) => setTimeout(r, 100))
    await worker.fetch(legacy({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'test_update_watched_resource', arguments: {} } }, session))
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } })
    expect((await worker.fetch(new Request('https://mcp.example.com/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } }))).status).toBe(204)
    await expect(stream.next()).rejects.toThrow('stream ended')
    expect((await worker.fetch(legacy({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, session))).status).toBe(404)
  })
})
