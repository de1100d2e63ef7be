/**
 * 2025 sessions: what a request of a session costs in store operations and backplane messages (Redis
 * commands, counted by Redis itself: INFO commandstats of a private redis-server), beside a modern request
 * and a 2025 request without a session; then what an idle session holds, on the instance and in Redis.
 *   node --import tsx bench/sessions.ts [--repeat 200] [--sessions 10000]
 */
import { spawn, execFileSync } from 'node:child_process'
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import { redisBackplane, redisTaskStore } from '../adapters/redis/index.js'
import { createFetchHandler, McpServer, sessions, type FetchHandler } from '../src/index.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '200' }, sessions: { type: 'string', default: '10000' } } })
const REPEAT = Number(values.repeat)
const SESSIONS = Number(values.sessions)

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})
const redis = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
const cli = (...args: string[]) => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 })
for (let i = 0; i < 50; i++) {
  try {
    if (cli('ping').trim() === 'PONG') break
  } catch {
    await new Promise((r) => setTimeout(r, 100))
  }
}
const url = `redis://127.0.0.1:${port}`

/** Redis commands run so far, by name (lowercase), from INFO commandstats. */
function commands(): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of cli('info', 'commandstats').matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) out.set(m[1]!, Number(m[2]))
  return out
}
/** Port calls and Redis commands per call of `run`, over `REPEAT` calls. */
async function cost(run: (i: number) => Promise<unknown>): Promise<{ ports: string; redis: number }> {
  const before = commands()
  calls.clear()
  for (let i = 0; i < REPEAT; i++) await run(i)
  const after = commands()
  let redis = 0
  for (const [name, n] of after) if (name !== 'info') redis += n - (before.get(name) ?? 0)
  const ports = [...calls].sort().map(([name, n]) => `${name} ${fmt(n / REPEAT, 2).replace(/\.00$/, '')}`).join(', ')
  return { ports: ports || 'none', redis: redis / REPEAT }
}

const server = new McpServer({ name: 'sessions-bench', version: '1.0.0' })
  .tool('echo', { description: 'Echoes' }, () => 'echo')
  .tool('ask', { description: 'Asks the user' }, async (_a, ctx) => (await ctx.elicit('name', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })).action)
  .resource('bench://r', { name: 'r' }, () => 'r')
const prefix = `bench-sessions-${process.pid}:`
const store = redisTaskStore({ url, prefix })
const backplane = redisBackplane({ url, prefix })
/** Calls of the ports' methods, by name: what any store and backplane would be asked, Redis or not. */
const calls = new Map<string, number>()
const counted = <T extends object>(port: T, label: string, methods: (keyof T)[]): T => {
  const out = Object.create(port) as T
  for (const m of methods) {
    const original = (port[m] as (...a: unknown[]) => unknown).bind(port)
    ;(out as Record<keyof T, unknown>)[m] = (...a: unknown[]) => {
      const name = `${label}.${String(m)}`
      calls.set(name, (calls.get(name) ?? 0) + 1)
      return original(...a)
    }
  }
  return out
}
const handler: FetchHandler = createFetchHandler(server, {
  store: counted(store, 'store', ['get', 'create', 'put']),
  backplane: counted(backplane, 'backplane', ['publish', 'subscribe']),
  sessions: sessions(),
  requestState: { secret: 'bench-secret-0123456789abcdef0123456789abcdef' } })

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const post = (body: object, headers: Record<string, string>) =>
  handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify({ jsonrpc: '2.0', ...body }) }))
const legacy = (session?: string) => ({ 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) })
const echo = { method: 'tools/call', params: { name: 'echo', arguments: {} } }
async function initialize(): Promise<string> {
  const res = await post({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'b', version: '1' } } }, legacy())
  await res.text()
  return res.headers.get('mcp-session-id')!
}
const drain = async (res: Response) => void (await res.text())

// Warm up: connections, scripts loaded.
const warm = await initialize()
await drain(await post({ id: 1, method: 'logging/setLevel', params: { level: 'info' } }, legacy(warm)))

const rows: [string, Awaited<ReturnType<typeof cost>>][] = []
rows.push(['modern tools/call', await cost((i) => post({ id: i, ...echo, params: { ...echo.params, _meta: MODERN_META } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }).then(drain))])
rows.push(['2025 tools/call, no session', await cost((i) => post({ id: i, ...echo }, legacy()).then(drain))])
rows.push(['2025 initialize', await cost(() => initialize())])
const plain = await initialize()
rows.push(['2025 tools/call, session that changed nothing', await cost((i) => post({ id: i, ...echo }, legacy(plain)).then(drain))])
rows.push(['2025 tools/call, session with a log level', await cost((i) => post({ id: i, ...echo }, legacy(warm)).then(drain))])
rows.push(['2025 logging/setLevel', await cost((i) => post({ id: i, method: 'logging/setLevel', params: { level: i % 2 ? 'info' : 'debug' } }, legacy(warm)).then(drain))])
rows.push(['2025 resources/subscribe + unsubscribe', await cost(async (i) => {
  await drain(await post({ id: i, method: 'resources/subscribe', params: { uri: 'bench://r' } }, legacy(warm)))
  await drain(await post({ id: i, method: 'resources/unsubscribe', params: { uri: 'bench://r' } }, legacy(warm)))
})])
rows.push(['2025 tools/call that elicits, with its answer POST', await cost(async (i) => {
  const res = await post({ id: i, method: 'tools/call', params: { name: 'ask', arguments: {} } }, legacy(warm))
  const reader = res.body!.getReader()
  let text = ''
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value)
  const asked = JSON.parse(text.split('data: ')[1]!.split('\n')[0]!)
  await drain(await post({ id: asked.id, result: { action: 'accept', content: { name: 'n' } } }, legacy(warm)))
  while (!(await reader.read()).done);
})])
rows.push(['2025 DELETE', await cost(async () => {
  const s = await initialize()
  await handler(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': s } }))
})])

// What an idle session holds: on the instance, nothing past its requests; in Redis, its record. Measured
// over a second batch, the first having warmed up what any traffic grows once (code, pools, buffers).
const gc = (globalThis as { gc?: () => void }).gc
let last = ''
const idleSessions = async () => {
  for (let i = 0; i < SESSIONS; i++) {
    last = await initialize()
    await drain(await post({ id: 1, method: 'resources/subscribe', params: { uri: 'bench://r' } }, legacy(last)))
  }
}
await idleSessions()
gc?.()
const heapBefore = process.memoryUsage().heapUsed
await idleSessions()
gc?.()
const heapPer = (process.memoryUsage().heapUsed - heapBefore) / SESSIONS
const key = cli('--scan', '--pattern', `${prefix}*session-*`).split('\n').find(Boolean)!
const redisBytes = Number(cli('memory', 'usage', key).trim())
const idLength = last.length

await handler.close()
await store.close()
await backplane.close()
redis.kill()

const table = rows.map(([name, c]) => `| ${name} | ${c.ports} | ${fmt(c.redis, 1)} |`).join('\n')
writeSection('sessions', `## 2025 sessions: store and backplane calls per request, and what an idle session holds

\`node --expose-gc --import tsx bench/sessions.ts --repeat ${REPEAT} --sessions ${SESSIONS}\`, ${new Date().toISOString().slice(0, 10)}, ${machine()}.
The fetch handler in-process with the Redis task store and backplane on a private redis-server. Per request,
over ${REPEAT}: the calls of the TaskStore and Backplane ports (what any store would be asked), and the commands
Redis ran for them (INFO commandstats, the commands inside the store's Lua scripts included). A session's id is
sealed with the client's capabilities inside (${idLength} characters), so initialize stores nothing and a session
that changes nothing has no record; each request of a session reads whether it ended (and its log level).

| request | store and backplane calls | Redis commands |
|---|---|---|
${table}

Idle sessions: ${SESSIONS} sessions, each initialized and subscribed to one resource, then left (measured over a
second batch of ${SESSIONS}, after a first warmed up): the instance's heap changed by ${fmt(heapPer, 1)} bytes per
session (after GC${gc ? '' : ': not run, start node with --expose-gc'}): no object or timer is kept for a session. Each keeps one record
in Redis of ${redisBytes} bytes (MEMORY USAGE) until it expires.`)
console.log(table)
console.log({ heapPer, redisBytes, idLength })
