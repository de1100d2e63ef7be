/**
 * Listen fan-out: N listen streams on one Node server process, then publishes; reports memory per stream
 * and publish-to-delivery delay over all deliveries, for the in-memory and the Redis backplane.
 *   node --import tsx bench/listen-fanout.ts [--streams 10000] [--rounds 20] [--backplane memory,redis]
 */
import { fork, type ChildProcess } from 'node:child_process'
import { Agent, request, type ClientRequest } from 'node:http'
import { parseArgs } from 'node:util'
import { fmt, machine, percentile, writeSection } from './report.js'

const { values } = parseArgs({ options: { streams: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '20' }, backplane: { type: 'string', default: 'memory,redis' } } })
const STREAMS = Number(values.streams)
const ROUNDS = Number(values.rounds)
const now = () => performance.timeOrigin + performance.now()

interface Reply { type: string; [k: string]: unknown }

function ask(child: ChildProcess, message: Reply, type: string): Promise<Reply> {
  return new Promise((resolve) => {
    const on = (m: Reply) => {
      if (m.type !== type) return
      child.off('message', on)
      resolve(m)
    }
    child.on('message', on)
    child.send(message)
  })
}

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

async function run(kind: string) {
  const child = fork(new URL('./fanout-server.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, BACKPLANE: kind },
  })
  const { url } = (await new Promise<Reply>((resolve) => child.once('message', resolve))) as unknown as { url: string }
  const target = new URL(url)
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  const before = await ask(child, { type: 'memory' }, 'memory')

  const received: number[][] = Array.from({ length: STREAMS }, () => [])
  const requests: ClientRequest[] = []
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } })
      const req = request({
        agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      }, (res) => {
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          if (chunk.includes('acknowledged')) return resolve()
          const t = now()
          for (let at = chunk.indexOf('list_changed'); at >= 0; at = chunk.indexOf('list_changed', at + 1)) received[i]!.push(t)
        })
        res.on('error', () => {})
      })
      req.on('error', reject)
      req.end(body)
      requests.push(req)
    })
  const t = Date.now()
  for (let i = 0; i < STREAMS; i += 500) await Promise.all(Array.from({ length: Math.min(500, STREAMS - i) }, (_, j) => open(i + j)))
  const openMs = Date.now() - t
  const after = await ask(child, { type: 'memory' }, 'memory')

  const delays: number[] = []
  const lastPerRound: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const { t0 } = (await ask(child, { type: 'publish' }, 'published')) as unknown as { t0: number }
    const deadline = Date.now() + 10_000
    while (received.some((r) => r.length <= round) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    const roundDelays = received.map((r) => (r[round] ?? Infinity) - t0)
    delays.push(...roundDelays)
    lastPerRound.push(Math.max(...roundDelays))
    await new Promise((r) => setTimeout(r, 100))
  }
  for (const req of requests) req.destroy()
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.send({ type: 'stop' })
  await exited
  agent.destroy()

  delays.sort((a, b) => a - b)
  lastPerRound.sort((a, b) => a - b)
  const lost = delays.filter((d) => d === Infinity).length
  const perStream = (k: 'rss' | 'heapUsed') => ((after[k] as number) - (before[k] as number)) / STREAMS
  return {
    kind, openMs, lost,
    rssPerStream: perStream('rss'), heapPerStream: perStream('heapUsed'),
    p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1)!, lastP50: percentile(lastPerRound, 50),
  }
}

const results = []
for (const kind of values.backplane!.split(',')) {
  const r = await run(kind)
  console.log(`${kind}: opened ${STREAMS} streams in ${r.openMs} ms; ${fmt(r.rssPerStream / 1024)} KiB RSS and ${fmt(r.heapPerStream / 1024)} KiB heap per stream; ` +
    `publish->delivery p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms; lost ${r.lost}`)
  results.push(r)
}

writeSection('listen-fanout', `
## Listen fan-out (${STREAMS.toLocaleString('en')} streams on one Node process)

\`node --import tsx bench/listen-fanout.ts --streams ${STREAMS} --rounds ${ROUNDS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
The load generator (one process, node:http) opens ${STREAMS.toLocaleString('en')} \`subscriptions/listen\` SSE streams to one server process
(\`bench/fanout-server.ts\`), each waiting for its acknowledgement, then asks the server over IPC to publish a tools change
${ROUNDS} times. Delay = time the change arrived on a stream minus the moment the server began publishing (same machine
clock); every stream's delivery counts. Memory = server RSS and V8 heap after GC, with the streams open minus before, per stream.

| backplane | open all streams | RSS / stream | heap / stream | delay p50 | delay p99 | max | slowest stream, median round | lost |
|---|---|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.kind} | ${(r.openMs / 1000).toFixed(1)} s | ${fmt(r.rssPerStream / 1024)} KiB | ${fmt(r.heapPerStream / 1024)} KiB | ${fmt(r.p50)} ms | ${fmt(r.p99)} ms | ${fmt(r.max)} ms | ${fmt(r.lastP50)} ms | ${r.lost} |`).join('\n')}

Both processes share the machine's 2 cores, so the figures include the load generator's own work of reading
${STREAMS.toLocaleString('en')} sockets.
`)
