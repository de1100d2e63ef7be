// Memory held by N finished tasks on the memory store: prints { heap, rss } growth in bytes as JSON.
import { createFetchHandler, McpServer, memoryTaskStore, tasks } from 'mcp-edge'

const n = Number(process.argv[2] ?? 100000)
// What a task holds, not the limits: the store may keep every one.
const store = memoryTaskStore({ maxBytes: 2 ** 31 })
const server = new McpServer({ name: 'held', version: '1.0.0' }).tool('noop', { description: 'no-op', task: 'required' }, () => 'ok')
const handler = createFetchHandler(server, { extensions: [tasks({ store, maxRecords: 1e7 })] })
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'held', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
}
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'noop' }
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'noop', arguments: {}, _meta: meta } })
const ids = []
const call = () => handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body })).then((r) => r.json()).then((m) => m.result.taskId)

const settle = async () => {
  for (let i = 0; i < 3; i++) globalThis.gc()
  await new Promise((r) => setTimeout(r, 100))
  return process.memoryUsage()
}
for (let i = 0; i < 1000; i++) await call() // warm-up: code paths compiled, pools made
await new Promise((r) => setTimeout(r, 200))
const before = await settle()
const sizeBefore = store.size
for (let i = 0; i < n; i += 500) ids.push(...(await Promise.all(Array.from({ length: Math.min(500, n - i) }, call))))
await new Promise((r) => setTimeout(r, 500))
for (const id of ids) if ((await store.get(id))?.status !== 'completed') throw new Error(`task ${id} did not complete`)
ids.length = 0 // the client's copy of the ids is not what the server holds
const after = await settle()
if (store.size - sizeBefore !== n) throw new Error(`expected ${n} more tasks, the store holds ${store.size - sizeBefore}`)
process.stdout.write(JSON.stringify({ heap: after.heapUsed - before.heapUsed, rss: after.rss - before.rss }))
process.exit(0)
