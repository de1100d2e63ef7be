import { expect } from 'vitest'
import { serve, type RunningServer, type ServeOptions } from '../../adapters/node/index.js'
import { tasks, type McpServer } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { requestVersion, sseMessages, validateServerMessage } from './wire.js'

export const TEST_SECRET = 'test-secret-0123456789abcdef0123456789abcdef'

/** The everything server on a free loopback port, without signal handlers. */
export function startEverything(options: ServeOptions = {}, server?: McpServer): Promise<RunningServer> {
  // Without the start-up line (test/adapters/node-serve.test.ts reads it) in every test's output.
  const served = server ?? createEverythingServer()
  return serve(served, { port: 0, handleSignals: false, log: false, requestState: { secret: TEST_SECRET }, extensions: tasksFor(served), ...options })
}

/** Tasks where the server has a task tool (it would not start without them); else no extension. */
export const tasksFor = (server: McpServer) => (server.taskTool === undefined ? [] : [tasks()])

export const META_2026 = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-edge-tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  ...extra,
})

/** Headers a modern client sends for a request (Mcp-Name from name/uri). */
export function modernHeaders(method: string, params: Record<string, unknown> = {}, version = '2026-07-28'): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    'mcp-method': method,
  }
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name
    : ['tasks/get', 'tasks/update', 'tasks/cancel'].includes(method) ? params.taskId : undefined
  if (typeof name === 'string') headers['mcp-name'] = name
  return headers
}

export interface RpcOptions {
  id?: string | number
  /** Replace the headers a modern client would send (`modernHeaders`). */
  headers?: Record<string, string> | undefined
  url?: string
}

/**
 * One JSON-RPC request through a fetch handler in this process. The answer (a JSON body; SSE is read by the
 * tests that want it) is checked against the schema of the version the request spoke.
 */
export async function rpc(handler: (request: Request) => Promise<Response>, method: string, params: Record<string, unknown>, options: RpcOptions = {}) {
  const message = { jsonrpc: '2.0', id: options.id ?? 1, method, params }
  const version = requestVersion(message, undefined)
  const headers = options.headers ?? modernHeaders(method, params, version === 'legacy' ? undefined : version)
  const res = await handler(new Request(options.url ?? 'http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(message) }))
  const body = res.headers.get('content-type') === 'application/json' ? await res.json() : undefined
  // Authorization refusals are OAuth error objects (`error` a string), not JSON-RPC messages.
  if (body && typeof body.error !== 'string') expect(validateServerMessage(requestVersion(message, headers['mcp-protocol-version']), method, body)).toEqual([])
  return { status: res.status, headers: res.headers, body, response: res }
}

/** Opens a listen stream and returns an iterator over its messages. */
export async function openListen(f: (r: Request) => Promise<Response>, notifications: Record<string, unknown>, id: string | number = 'listen-1', capabilities: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const params = { notifications, _meta: META_2026(capabilities) }
  const res = await f(new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { ...modernHeaders('subscriptions/listen', params), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
  }))
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const reader = res.body!.getReader()
  const messages = sseMessages(new ReadableStream({ pull: async (c) => { const r = await reader.read(); if (r.done) c.close(); else c.enqueue(r.value) } }))
  return { next: async () => (await messages.next()).value as Record<string, any>, cancel: () => reader.cancel() }
}
