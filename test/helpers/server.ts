import { serve, type RunningServer, type ServeOptions } from '../../adapters/node/index.js'
import type { McpServer } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'

export const TEST_SECRET = 'test-secret-0123456789abcdef0123456789abcdef'

/** The everything server on a free loopback port, without signal handlers. */
export function startEverything(options: ServeOptions = {}, server?: McpServer): Promise<RunningServer> {
  return serve(server ?? createEverythingServer({ requestState: { secret: TEST_SECRET } }), { port: 0, handleSignals: false, ...options })
}

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
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined
  if (typeof name === 'string') headers['mcp-name'] = name
  return headers
}
