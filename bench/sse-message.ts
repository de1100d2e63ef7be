/**
 * The largest message delivered over SSE: a tool that reports progress (which opens a stream) and then returns
 * a result of 1, 2, 4 and 8 MB, over a real HTTP server on each sink (src/http/sse.ts): Node's own connection
 * (serve(), adapters/node/sse.ts) and a ReadableStream body (the fetch handler under @hono/node-server, as on
 * Workers and Lambda). Prints, for each, whether the result arrived whole, a JSON-RPC error, or nothing.
 *
 *   node --import tsx bench/sse-message.ts
 */
import { serve as honoServe } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { createFetchHandler, McpServer } from '../src/index.js'
import { serve } from '../adapters/node/index.js'

const server = new McpServer({ name: 'big', version: '1.0.0' }).tool('big', {}, async (args, ctx) => {
  ctx.progress(1)
  return 'x'.repeat(Number((args as { bytes: number }).bytes))
})

const headers = {
  'content-type': 'application/json', accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'big',
}
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
  progressToken: 'p',
}

async function call(url: string, bytes: number): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big', arguments: { bytes }, _meta: meta } })
  // A stream cut at once fails the fetch itself (the headers had not been read yet).
  const text = await fetch(url, { method: 'POST', headers, body }).then((res) => res.text()).catch(() => '')
  const last = text.split('\n\n').filter((e) => e.startsWith('event:') || e.startsWith('id:')).at(-1) ?? ''
  const data = last.slice(last.indexOf('data: ') + 6)
  if (!data.includes('"id":1')) return 'nothing (stream cut)'
  const message = JSON.parse(data)
  return message.result ? `whole (${message.result.content[0].text.length === bytes})` : `error ${message.error.code}: ${message.error.message}`
}

const node = await serve(server, { port: 0, handleSignals: false, log: false })
const handler = createFetchHandler(server)
const stream = honoServe({ fetch: (r) => handler(r), port: 0, hostname: '127.0.0.1' })
await new Promise((r) => stream.once('listening', r))
const sinks = { 'Node connection': node.url, 'ReadableStream body': `http://127.0.0.1:${(stream.address() as AddressInfo).port}/mcp` }
for (const [name, url] of Object.entries(sinks)) {
  for (const mb of [1, 2, 4, 8]) console.log(`${name}, ${mb} MB result: ${await call(url, mb * 1_000_000)}`)
}
await node.close()
await handler.close()
stream.close()
