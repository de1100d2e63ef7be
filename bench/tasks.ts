/**
 * Tasks: create-to-completed latency of a no-op task (p50/p99) and tasks/get throughput, on the memory store
 * and on Redis, beside plain tools/call on the same server in the same run; then the memory 100,000 finished
 * tasks hold on the memory store until their TTL.
 *   npm run build && node --import tsx bench/tasks.ts [--seconds 5] [--rounds 3] [--connections 32] [--tasks 500] [--held 100000]
 */
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { bodyFor, ensureWrk, headersFor, median, startServer, wrk, type Request, type Server, type WrkResult } from './load.js'
import { fmt, machine, percentile, writeSection } from './report.js'

const { values } = parseArgs({ options: {
  seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, connections: { type: 'string', default: '32' },
  tasks: { type: 'string', default: '500' }, held: { type: 'string', default: '100000' },
} })
const SECONDS = Number(values.seconds)
const ROUNDS = Number(values.rounds)
const CONNECTIONS = Number(values.connections)
const TASKS = Number(values.tasks)
const HELD = Number(values.held)
const TASKS_CAPS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const ECHO: Request = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello world' } } }

async function post(url: string, r: Request): Promise<Record<string, any>> {
  const res = await fetch(url, { method: 'POST', headers: headersFor(r), body: bodyFor(r) })
  const body = await res.json() as Record<string, any>
  if (res.status !== 200 || body.error) throw new Error(`${r.method} failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
  return body.result
}
const getTask = (taskId: string): Request => ({ method: 'tasks/get', params: { taskId, _meta: TASKS_CAPS } })

/** One no-op task from tools/call to the first tasks/get that sees it completed, polling back to back. */
async function createToCompleted(url: string): Promise<number> {
  const started = performance.now()
  const { taskId } = await post(url, { method: 'tools/call', params: { name: 'noop', arguments: {}, _meta: TASKS_CAPS } })
  while ((await post(url, getTask(taskId))).status !== 'completed');
  return performance.now() - started
}

async function plainCall(url: string): Promise<number> {
  const started = performance.now()
  await post(url, ECHO)
  return performance.now() - started
}

const sequential = async (n: number, one: () => Promise<number>) => {
  const times: number[] = []
  for (let i = 0; i < n; i++) times.push(await one())
  return times.sort((a, b) => a - b)
}

ensureWrk()
execFileSync('redis-cli', ['-u', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'ping'], { stdio: 'ignore' })
const stores: [string, Server][] = [
  ['memory', await startServer('memory', 'tasks.mjs')],
  ['Redis', await startServer('Redis', 'tasks.mjs', [], { TASK_STORE: 'redis', REDIS_PREFIX: `mcp-bench-${process.pid}` })],
]
const rows: string[] = []
const throughput: Record<string, { call: WrkResult; get: WrkResult }> = {}
try {
  for (const [store, server] of stores) {
    const { taskId } = await post(server.url, { method: 'tools/call', params: { name: 'noop', arguments: {}, _meta: TASKS_CAPS } })
    while ((await post(server.url, getTask(taskId))).status !== 'completed');
    await sequential(50, () => createToCompleted(server.url)) // warm-up
    const latency = await sequential(TASKS, () => createToCompleted(server.url))
    const plain = await sequential(TASKS, () => plainCall(server.url))
    const runs = { call: [] as WrkResult[], get: [] as WrkResult[] }
    for (const r of [ECHO, getTask(taskId)]) await wrk(server.url, r, { seconds: 1, connections: CONNECTIONS })
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, r] of (round % 2 ? [['get', getTask(taskId)], ['call', ECHO]] : [['call', ECHO], ['get', getTask(taskId)]]) as ['call' | 'get', Request][]) {
        const result = await wrk(server.url, r, { seconds: SECONDS, connections: CONNECTIONS })
        if (result.errors > 0) throw new Error(`${store} ${kind}: ${result.errors} failed requests`)
        runs[kind].push(result)
      }
    }
    const med = (rs: WrkResult[]) => ({ rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)), requests: 0, errors: 0 })
    throughput[store] = { call: med(runs.call), get: med(runs.get) }
    const t = throughput[store]!
    rows.push(`| ${store} | ${fmt(percentile(latency, 50), 2)} ms | ${fmt(percentile(latency, 99), 2)} ms | ${fmt(percentile(plain, 50), 2)} ms | ${fmt(percentile(plain, 99), 2)} ms | ${Math.round(t.get.rps).toLocaleString('en')} | ${Math.round(t.call.rps).toLocaleString('en')} | ${fmt(t.get.rps / t.call.rps, 2)} |`)
    console.log(`${store}: create→completed p50 ${fmt(percentile(latency, 50), 2)} ms p99 ${fmt(percentile(latency, 99), 2)} ms; plain call p50 ${fmt(percentile(plain, 50), 2)} ms; tasks/get ${Math.round(t.get.rps)} req/s vs tools/call ${Math.round(t.call.rps)} req/s`)
  }
} finally {
  for (const [, s] of stores) await s.stop()
}

// Memory held by finished tasks: in a process of its own, on the memory store, through the fetch handler.
const held = JSON.parse(execFileSync(process.execPath, ['--expose-gc', new URL('./tasks-held.mjs', import.meta.url).pathname, String(HELD)], { encoding: 'utf8' }))
console.log(`held: ${HELD} finished tasks take ${fmt(held.heap / 2 ** 20)} MB of heap (${Math.round(held.heap / HELD)} bytes each), RSS +${fmt(held.rss / 2 ** 20)} MB`)

writeSection('tasks', `
## Tasks: create-to-completed latency and tasks/get throughput, memory store and Redis

\`npm run build && node --import tsx bench/tasks.ts --seconds ${SECONDS} --rounds ${ROUNDS} --connections ${CONNECTIONS} --tasks ${TASKS} --held ${HELD}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
One server process per store (\`serve()\`, pinned to core 0; Redis 127.0.0.1:6379 on the same machine), with a no-op
tool that always runs as a task and a plain echo tool. *Create → completed*: one client sends \`tools/call\` and then
\`tasks/get\` back to back until it reads \`completed\`, ${TASKS} times in a row, after 50 warm-up tasks; *plain call* is
the same client's echo \`tools/call\` in the same run. Throughput: wrk (1 thread, ${CONNECTIONS} connections, core 1)
on \`tasks/get\` of one completed task and on the echo \`tools/call\`, alternating, medians of ${ROUNDS} rounds of ${SECONDS} s.

| store | create → completed p50 | p99 | plain tools/call p50 | p99 | tasks/get req/s | tools/call req/s | tasks/get ÷ tools/call |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Goal: \`tasks/get\` on Redis at least half of plain tools/call throughput: **${fmt(throughput.Redis!.get.rps / throughput.Redis!.call.rps, 2)}**.

### Memory of finished tasks

${HELD.toLocaleString('en')} no-op tasks run to \`completed\` on the memory store through the fetch handler, held until their TTL (1 h):
V8 heap after GC grows by **${fmt(held.heap / 2 ** 20)} MB** (${Math.round(held.heap / HELD)} bytes per task), RSS by ${fmt(held.rss / 2 ** 20)} MB.
`)
