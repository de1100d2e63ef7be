/**
 * What keeping a resumable request's messages costs: a tool that reports progress N times as fast as it
 * can, called plainly and resumably (its messages kept in memory or in Redis), through the fetch handler
 * in this process. Reports calls' wall time and kept messages per second.
 *   node --import tsx bench/resumable.ts [--reports 1000] [--runs 5]
 */
import { parseArgs } from 'node:util'
import { redisTaskStore } from '../adapters/redis/index.js'
import { createFetchHandler, McpServer, memoryTaskStore, resumable } from '../src/index.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { reports: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } } })
const REPORTS = Number(values.reports)
const RUNS = Number(values.runs)
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'


const server = new McpServer({ name: 'bench-resumable', version: '1.0.0' }).tool('burst', {}, async (_args, ctx) => {
  for (let i = 1; i <= REPORTS; i++) ctx.progress(i, REPORTS)
  return 'done'
})

const META = (resumable: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': resumable ? { resumableRequests: {} } : {},
  progressToken: 'p',
})

/** One call, read to its end: ms taken, and how many progress messages the client got. */
async function call(handler: (r: Request) => Promise<Response>, resumable: boolean): Promise<{ ms: number; got: number }> {
  const started = performance.now()
  const params = { name: 'burst', arguments: {}, _meta: META(resumable) }
  const res = await handler(new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'burst' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  }))
  const text = await res.text()
  return { ms: performance.now() - started, got: text.split('notifications/progress').length - 1 }
}

const redisStore = redisTaskStore({ url: REDIS_URL, prefix: `bench-resumable-${process.pid}:` })
const contenders = [
  { name: 'plain call (messages streamed, not kept)', resumable: false, handler: createFetchHandler(server) },
  { name: 'resumable, kept in memory', resumable: true, handler: createFetchHandler(server, { extensions: [resumable({ store: memoryTaskStore({ maxBytes: 2 ** 31 }), maxRecords: 1e7 })] }) },
  { name: 'resumable, kept in Redis', resumable: true, handler: createFetchHandler(server, { extensions: [resumable({ store: redisStore, maxRecords: 1e7 })] }) },
]

const rows: string[] = []
for (const c of contenders) {
  await call(c.handler, c.resumable) // warm-up
  const times: number[] = []
  let got = 0
  for (let i = 0; i < RUNS; i++) {
    const run = await call(c.handler, c.resumable)
    times.push(run.ms)
    got = run.got
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]!
  rows.push(`| ${c.name} | ${fmt(median, 0)} ms | ${fmt((REPORTS / median) * 1000, 0)} | ${got} |`)
  console.log(rows.at(-1))
}
await redisStore.close?.()

writeSection('resumable', `## Resumable requests: the cost of keeping messages

\`npm run bench:resumable -- --reports ${REPORTS} --runs ${RUNS}\`, ${new Date().toISOString().slice(0, 10)}, ${machine()}.
One call of a tool that reports progress ${REPORTS} times without pausing, through the fetch handler in-process;
median of ${RUNS} runs. A resumable call appends its messages to a log beside its record (TaskStore.append: the
messages that came while the last batch was written go in one write, RPUSH in Redis) and publishes each batch
before the stream writes it; the record itself is not rewritten.

| call | wall time | messages / s | progress messages received |
|---|---|---|---|
${rows.join('\n')}
`)
process.exit(0)
