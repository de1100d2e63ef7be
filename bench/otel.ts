/**
 * What OpenTelemetry costs a tools/call on Node: mcp-edge without telemetry, with @opentelemetry/api
 * installed and no SDK (the default on Node: the API's no-ops), and with the SDK exporting every span, or
 * one trace in ten, and the metrics over OTLP/HTTP to a receiver in this process. Each in its own process,
 * wrk as the load, the four alternating round by round.
 *   node --import tsx bench/otel.ts [--seconds 6] [--rounds 5] [--connections 32]
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { ensureWrk, median, startServer, wrk, type Request, type WrkResult } from './load.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '6' }, rounds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } })
const SECONDS = Number(values.seconds)
const ROUNDS = Number(values.rounds)
const CONNECTIONS = Number(values.connections)
const CALL: Request = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello world' } } }

// The receiver counts what it is sent, so that the SDK row shows its spans really went out, without parsing
// it: it shares the machine's two cores with the server and wrk.
let exports = 0
let bytes = 0
const receiver = createServer((req, res) => {
  req.on('data', (c: Buffer) => void (bytes += c.length))
  req.on('end', () => {
    if (req.url === '/v1/traces') exports++
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

ensureWrk()
const MODES = [
  { name: 'no telemetry', mode: 'off' },
  { name: '@opentelemetry/api, no SDK (Node default)', mode: 'api' },
  { name: 'SDK, every span and the metrics exported over OTLP/HTTP', mode: 'sdk' },
  { name: 'SDK, one trace in ten sampled, the metrics exported', mode: 'sampled' },
] as const
const servers = await Promise.all(MODES.map((m) => startServer(m.name, 'edge-otel.mjs', [], { BENCH_TELEMETRY: m.mode, BENCH_OTLP_URL: otlp })))
try {
  for (const s of servers) await wrk(s.url, CALL, { seconds: 2, connections: CONNECTIONS })
  const runs = new Map<string, WrkResult[]>(servers.map((s) => [s.name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers.map((_, i) => servers[(i + round) % servers.length]!)) {
      const r = await wrk(s.url, CALL, { seconds: SECONDS, connections: CONNECTIONS })
      if (r.errors > 0) throw new Error(`${s.name}: ${r.errors} failed requests`)
      runs.get(s.name)!.push(r)
    }
  }
  const base = runs.get(MODES[0].name)!
  const rows = MODES.map(({ name }) => {
    const rs = runs.get(name)!
    const rps = median(rs.map((r) => r.rps))
    // Each round against the same round without telemetry (bench/http.ts says why: this VM's speed drifts).
    const cost = name === MODES[0].name ? '' : `${fmt(100 * median(rs.map((r, round) => 1 - r.rps / base[round]!.rps)), 1)}%`
    console.log(`${name}: ${Math.round(rps)} req/s ${cost}`)
    return `| ${name} | ${Math.round(rps).toLocaleString('en')} | ${fmt(median(rs.map((r) => r.p50)), 2)} ms | ${fmt(median(rs.map((r) => r.p99)), 2)} ms | ${cost} |`
  })
  writeSection('otel', `
## What OpenTelemetry costs a tools/call (Node)

\`node --import tsx bench/otel.ts --seconds ${SECONDS} --rounds ${ROUNDS} --connections ${CONNECTIONS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
mcp-edge's tools/call (zod input) on \`serve()\` in four processes, pinned to core 0 (wrk to core 1), alternating round by
round: without telemetry (\`telemetry: undefined\`), with \`@opentelemetry/api\` installed and no SDK registered (what Node
does by default: the API's no-op tracer and meter), and with the SDK registered (\`TracerProvider\` with a
\`BatchSpanProcessor\`, \`MeterProvider\` with a 1 s \`PeriodicExportingMetricReader\`, both exporting OTLP/HTTP JSON to a
receiver in the bench process, which took ${exports.toLocaleString('en')} span exports, ${fmt(bytes / 2 ** 20)} MiB with the metrics, reading without parsing), sampling every trace or, as production would, one in ten (\`ParentBasedSampler\` over a
\`TraceIdRatioBasedSampler(0.1)\`; the metrics still see every request). Medians of ${ROUNDS} rounds of ${SECONDS} s; the last column is the
throughput lost against no telemetry, the median over the rounds of each against the same round without it.

| telemetry | req/s | p50 | p99 | cost |
|---|---|---|---|---|
${rows.join('\n')}
`)
} finally {
  for (const s of servers) await s.stop()
  receiver.close()
}
