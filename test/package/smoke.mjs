// Run inside the consumer project (plain Node, no loader): one tools/call through the installed package.
// Prints what the test checks: where mcp-edge resolved from, the subpaths that load, and the answer.
import { createFetchHandler, McpServer } from 'mcp-edge'

const server = new McpServer({ name: 'consumer-smoke', version: '1.0.0' }).tool('add', {
  description: 'Adds two numbers',
  input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
}, ({ a, b }) => String(a + b))

const params = {
  name: 'add',
  arguments: { a: 2, b: 3 },
  _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'consumer-smoke', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  },
}
const response = await createFetchHandler(server)(new Request('http://127.0.0.1/mcp', {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'add',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
}))

// The Workers adapter imports cloudflare:workers, which only workerd has; the type check covers it.
const subpaths = {}
for (const name of ['mcp-edge/core', 'mcp-edge/node', 'mcp-edge/redis']) subpaths[name] = Object.keys(await import(name)).sort()

console.log(JSON.stringify({
  resolved: import.meta.resolve('mcp-edge'),
  subpaths,
  status: response.status,
  contentType: response.headers.get('content-type'),
  body: await response.json(),
}))
