/**
 * The attack review's flood (issue 26, finding 1), against `npm start` as a user runs it: one anonymous client
 * sends task calls (or resumable calls it walks away from) with large arguments, four at a time. Reported:
 * what it was answered, the server's peak RSS, whether a task kept before the flood is still there and the
 * server still answers; with --redis, what Redis holds afterwards.
 *   node --import tsx bench/flood.ts [--seconds 40] [--redis redis://127.0.0.1:6379]
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '40' }, redis: { type: 'string' } } })
const SECONDS = Number(values.seconds)
const MB = 1024 * 1024
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number }
    s.close(() => resolve(port))
  })
})

async function start(prefix: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const env: Record<string, string> = { ...process.env as Record<string, string>, PORT: String(port), MCP_REQUEST_STATE_SECRET: 'flood-secret-0123456789abcdef0123456789' }
  if (values.redis) Object.assign(env, { REDIS_URL: values.redis, REDIS_PREFIX: prefix })
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/everything/node.ts'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => d.toString().includes('listening on') && resolve())
    child.once('exit', (code) => reject(new Error(`npm start exited (${code})`)))
  })
  return { url: `http://127.0.0.1:${port}/mcp`, child }
}

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

/** One request; `version` picks the 2026-07-28 form (tasks) or the seed draft's (resumable requests). */
async function send(url: string, method: string, params: Record<string, unknown>, seed = false, signal?: AbortSignal) {
  const version = seed ? 'DRAFT-2026-v1' : '2026-07-28'
  const meta = {
    'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': { name: 'flood', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': seed ? { resumableRequests: {} } : TASKS,
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, 'mcp-method': method }
  if (typeof params.name === 'string') headers['mcp-name'] = params.name
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } })
  return fetch(url, { method: 'POST', headers, body, signal: signal ?? null })
}

/** What one flood request was answered: kept, or refused and how. */
async function floodOnce(url: string, size: number, resumable: boolean): Promise<string> {
  const args = { name: 'slow_compute', arguments: { seconds: 3600, label: 'x'.repeat(size) } }
  const leave = new AbortController()
  const res = await send(url, 'tools/call', args, resumable, leave.signal)
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A resumable call: its policy arrives first; the client walks away, leaving it kept.
    const reader = res.body!.getReader()
    await reader.read()
    leave.abort()
    return 'kept'
  }
  const body = await res.json() as { result?: { resultType?: string }; error?: { code: number } }
  if (body.result?.resultType === 'task') return 'kept'
  return `${res.status} ${body.error?.code ?? 'result'}`
}

async function flood(size: number, resumable: boolean) {
  const prefix = `flood-${process.pid}-${Date.now()}:`
  const redis = values.redis ? new Redis(values.redis) : undefined
  const redisBefore = redis ? Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) : 0
  const { url, child } = await start(prefix)
  const kept = await (await send(url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 3600 } })).json() as { result: { taskId: string } }
  const outcomes = new Map<string, number>()
  let peak = rss(child.pid!)
  const sampler = setInterval(() => (peak = Math.max(peak, rss(child.pid!))), 200)
  const end = Date.now() + SECONDS * 1000
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (Date.now() < end) {
      const outcome = await floodOnce(url, size, resumable).catch((e: Error) => `failed: ${e.message}`)
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
    }
  }))
  clearInterval(sampler)
  const still = await (await send(url, 'tasks/get', { taskId: kept.result.taskId })).json() as { result?: { status: string } }
  const greet = await (await send(url, 'tools/call', { name: 'greet', arguments: { name: 'after' } })).json() as { result?: unknown }
  const alive = child.exitCode === null && greet.result !== undefined
  const redisAfter = redis ? Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]) : 0
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
  if (redis) {
    for (const key of await redis.keys(`${prefix}*`)) await redis.del(key)
    redis.disconnect()
  }
  return { outcomes, peak, kept: still.result?.status ?? 'gone', alive, redisGrowth: redisAfter - redisBefore }
}

const rows: string[] = []
for (const [label, size, resumable] of [['task calls, 3.5 MB arguments', 3.5 * MB, false], ['task calls, 0.9 MB arguments', 0.9 * MB, false], ['resumable calls left behind, 0.9 MB arguments', 0.9 * MB, true]] as const) {
  const r = await flood(size, resumable)
  const answered = [...r.outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ')
  const row = `| ${label} | ${answered} | ${fmt(r.peak / MB, 0)} MB | ${r.kept} | ${r.alive ? 'yes' : 'NO'} |${values.redis ? ` ${fmt(r.redisGrowth / MB, 0)} MB |` : ''}`
  console.log(row)
  rows.push(row)
}

writeSection(values.redis ? 'flood-redis' : 'flood', `
## Stored-work flood against \`npm start\`${values.redis ? ' with REDIS_URL' : ''}

\`node --import tsx bench/flood.ts --seconds ${SECONDS}${values.redis ? ' --redis URL' : ''}\`: one anonymous client, four requests at a time for ${SECONDS} s,
each a call of \`slow_compute\` (an hour's work) with a large \`label\`; a task kept before the flood is read after it.
Defaults throughout: \`maxRecordBytes\` 1 Mi characters, \`maxPerClient\` 100, \`maxRecords\` 10,000${values.redis ? '' : ', the memory store\'s `maxBytes` 64 Mi'}.
Before the limits, 3.5 MB task calls crashed the server (heap out of memory) after 1,022 tasks in 38 s.

| flood | answers (count, outcome: kept, or HTTP status and JSON-RPC code) | server peak RSS | task kept before | server answers after |${values.redis ? ' Redis memory growth |' : ''}
|---|---|---|---|---|${values.redis ? '---|' : ''}
${rows.join('\n')}

${machine()}, ${new Date().toISOString().slice(0, 10)}.
`)
