/**
 * What Lambda bills: each invocation's duration as the local function URL reports it (AWS's REPORT line:
 * from the event's delivery until the handler returns, waitUntil work included), summed over the
 * invocations one piece of work uses, and the GB-seconds it costs at 1,024 MB. A plain tools/call on
 * mcp-edge and on the SDK v2 (bench/lambda/), then, on template.yaml's function with a Redis of the run's
 * own: a task of one second (create, then polls until it completed), a task cancelled after half a second,
 * and a listen stream over its 60 s lifetime.
 *   node --import tsx bench/lambda-cost.ts [--calls 20] [--tasks 5]
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { startFunctionUrl, type FunctionUrl, type InvocationReport } from '../adapters/lambda/local/function-url.js'
import { buildLambda } from '../scripts/build-lambda.js'
import { ownRedis } from '../test/helpers/redis.js'
import { bodyFor, headersFor, median } from './load.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20' }, tasks: { type: 'string', default: '5' } } })
const CALLS = Number(values.calls)
const TASKS = Number(values.tasks)
// Lambda's price per GB-second on arm64 (template.yaml's architecture), at 1,024 MB.
const PER_GB_S = 0.0000133334
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

/** A function URL whose every invocation's billed time is noted. */
async function start(root: string, handler: string, env: Record<string, string> = {}, timeoutMs = 30_000) {
  const reports: InvocationReport[] = []
  const fn = await startFunctionUrl({ root, handler, port: 0, instances: 2, timeoutMs, holdBytes: 0, env, log: () => {}, onReport: (r) => void reports.push(r) })
  return { fn, reports }
}

/** Billed ms of the invocations `work` causes, once each has ended. */
async function billed(reports: InvocationReport[], work: () => Promise<number>): Promise<number> {
  const from = reports.length
  const invocations = await work()
  for (const end = Date.now() + 90_000; reports.length < from + invocations; await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > end) throw new Error('an invocation never ended')
  }
  return reports.slice(from).reduce((sum, r) => sum + Math.max(1, Math.ceil(r.durationMs)), 0)
}

async function rpc(fn: FunctionUrl, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const message = { method, params: { ...params, _meta: META } }
  const res = await fetch(fn.url, { method: 'POST', headers: headersFor(message), body: bodyFor(message) })
  const text = await res.text()
  const data = text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).at(-1)!
  return JSON.parse(data)
}

const echo = { name: 'echo', arguments: { text: 'hi' } }
const plain: Record<string, number> = {}
for (const [name, entry] of [['mcp-edge', 'edge.ts'], ['SDK v2', 'sdk.ts']] as const) {
  const built = await buildLambda(`dist/lambda/bench-${entry.replace('.ts', '')}`, { entry: `bench/lambda/${entry}` })
  const { fn, reports } = await start(built.dir, built.handler)
  await rpc(fn, 'tools/call', echo)
  const each: number[] = []
  for (let i = 0; i < CALLS; i++) each.push(await billed(reports, async () => (await rpc(fn, 'tools/call', echo), 1)))
  plain[name] = median(each)
  await fn.close()
}

const redis = await ownRedis()
const built = await buildLambda('dist/lambda/bench-everything')
const { fn, reports } = await start(built.dir, built.handler, {
  REDIS_URL: redis.url, REDIS_PREFIX: 'bench-cost:', MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('hex'), MCP_ALLOWED_HOSTS: 'localhost,127.0.0.1',
}, 120_000)
await rpc(fn, 'server/discover', {})

/** Creates a slow_compute task, polls tasks/get every 250 ms until it ends (cancelling it after `cancelMs`); the invocations it took. */
async function task(seconds: number, cancelMs?: number): Promise<number> {
  const created = await rpc(fn, 'tools/call', { name: 'slow_compute', arguments: { seconds } })
  const id = created.result.taskId as string
  let invocations = 1
  const started = Date.now()
  for (;;) {
    await new Promise((r) => setTimeout(r, 250))
    if (cancelMs !== undefined && Date.now() - started >= cancelMs) {
      await rpc(fn, 'tasks/cancel', { taskId: id })
      return invocations + 1
    }
    const got = await rpc(fn, 'tasks/get', { taskId: id })
    invocations++
    if (got.result.status !== 'working') return invocations
  }
}
const tasks: number[] = []
const cancelled: number[] = []
for (let i = 0; i < TASKS; i++) {
  tasks.push(await billed(reports, () => task(1)))
  cancelled.push(await billed(reports, () => task(60, 500)))
}
// A listen stream runs its lifetime (60 s on Lambda) whether changes come or not: the client cannot end it early.
const listenMs = await billed(reports, async () => (await rpc(fn, 'subscriptions/listen', { notifications: { toolsListChanged: true } }), 1))
await fn.close()
await redis.stop()

const gbS = (ms: number) => ms / 1000
const row = (what: string, ms: number, sdk?: number) =>
  `| ${what} | ${fmt(ms, 0)} ms | ${fmt(gbS(ms), 3)} GB-s | $${(gbS(ms) * PER_GB_S * 1e6).toFixed(2)} | ${sdk === undefined ? '—' : `${fmt(sdk, 0)} ms`} |`
const body = `## AWS Lambda: billed time per piece of work

\`node --import tsx bench/lambda-cost.ts --calls ${CALLS} --tasks ${TASKS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
Billed time is what the local function URL reports for each invocation as AWS's REPORT line does (from the event's
delivery to the runtime client until the handler returns: the response, then the waitUntil work it awaits), rounded up
to the millisecond and summed over every invocation the work took; GB-s and cost at 1,024 MB on arm64
($${PER_GB_S} per GB-s; requests, $0.20 per million, aside). Plain tools/call: the minimal servers of bench/lambda/
(one \`echo\` tool), median of ${CALLS} warm calls. The rest: template.yaml's function (examples/everything) with a Redis of
the run's own, two instances, medians of ${TASKS}. A task: \`slow_compute\` for 1 s (its handler's own running time),
created, then \`tasks/get\` every 250 ms until it completed; the invocation that made it runs it, so it is billed the
handler's second plus what the creation, the writes and the polls take. A cancelled task: \`slow_compute\` for 60 s,
polled, cancelled after 0.5 s from another instance. A listen stream: one, open for its lifetime (60 s on Lambda).

| work | billed | GB-s | per million | SDK v2 |
|---|---|---|---|---|
${row('plain tools/call (echo)', plain['mcp-edge']!, plain['SDK v2'])}
${row('task of 1 s, created and polled to completion', median(tasks))}
${row('task cancelled after 0.5 s', median(cancelled))}
${row('listen, open its minute (its lifetime on Lambda)', listenMs)}`

console.log(body)
writeSection('lambda-cost', body)
