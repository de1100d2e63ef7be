/**
 * Fan-out through McpHub under `wrangler dev`: N listen streams on the tools list (one topic, so one shard),
 * then a tool call from another connection changes the list; reports publish-to-delivery delay over every
 * stream, for growing N, with the streams on the shard's hub itself (relays 0) and spread over relay hubs.
 *   node --import tsx bench/workers-fanout.ts [--streams 100,500,1000,2000,4000] [--rounds 10] [--relays 0,4]
 */
import { Agent, request, type ClientRequest } from 'node:http'
import { parseArgs } from 'node:util'
import { fmt, machine, percentile, writeSection } from './report.js'
import { startWranglerDev } from '../scripts/wrangler-dev.js'
import { writeModel } from './workers-model.js'

const { values } = parseArgs({ options: { streams: { type: 'string', default: '100,500,1000,2000,4000' }, rounds: { type: 'string', default: '10' }, relays: { type: 'string', default: '0,4' } } })
const ROUNDS = Number(values.rounds)
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const now = () => performance.timeOrigin + performance.now()

function post(url: URL, agent: Agent, method: string, params: Record<string, unknown>, id: number, onData?: (chunk: string) => void) {
  return new Promise<ClientRequest>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }
    if (method === 'tools/call') headers['mcp-name'] = params.name as string
    const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
      res.setEncoding('utf8')
      if (!onData) {
        res.resume()
        res.on('end', () => resolve(req))
        return
      }
      let acked = false
      res.on('data', (chunk: string) => {
        if (!acked && chunk.includes('acknowledged')) {
          acked = true
          resolve(req)
        }
        onData(chunk)
      })
      res.on('error', () => {})
    })
    req.on('error', reject)
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }))
  })
}

async function run(url: URL, streams: number) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity })
  const received: number[][] = Array.from({ length: streams }, () => [])
  const opened: ClientRequest[] = []
  const t = Date.now()
  for (let i = 0; i < streams; i += 100) {
    opened.push(...await Promise.all(Array.from({ length: Math.min(100, streams - i) }, (_, j) =>
      post(url, agent, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, i + j, (chunk) => {
        if (chunk.includes('list_changed')) received[i + j]!.push(now())
      }))))
  }
  const openMs = Date.now() - t
  const delays: number[] = []
  const slowest: number[] = []
  // The tool call answers once its publish has returned: the hub (and each relay) has sent to every socket.
  const publishes: number[] = []
  let lost = 0
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = now()
    await post(url, agent, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} }, 1_000_000 + round)
    publishes.push(now() - t0)
    const deadline = Date.now() + 15_000
    while (received.some((r) => r.length <= round) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    const roundDelays = received.map((r) => (r[round] ?? Infinity) - t0)
    lost += roundDelays.filter((d) => d === Infinity).length
    delays.push(...roundDelays.filter((d) => d !== Infinity))
    slowest.push(Math.max(...roundDelays))
    await new Promise((r) => setTimeout(r, 200))
  }
  for (const req of opened) req.destroy()
  agent.destroy()
  await new Promise((r) => setTimeout(r, 1000))
  delays.sort((a, b) => a - b)
  slowest.sort((a, b) => a - b)
  publishes.sort((a, b) => a - b)
  return { streams, openMs, lost, p50: percentile(delays, 50), p99: percentile(delays, 99), slowestMedian: percentile(slowest, 50), publishMs: percentile(publishes, 50) }
}

const results = []
for (const relays of values.relays!.split(',').map(Number)) {
  for (const n of values.streams!.split(',').map(Number)) {
    // A wrangler dev of its own for each count: thousands of streams just closed would weigh on the next.
    // Every stream comes from loopback, one client by address: lift the per-client limit of listen streams.
    const dev = await startWranglerDev(['--var', 'MCP_LISTEN_MAX_PER_CLIENT:100000', '--var', `MCP_HUB_RELAYS:${relays}`])
    try {
      const r = { relays, ...await run(new URL(dev.url), n) }
      console.log(`${relays} relays, ${n} streams: opened in ${r.openMs} ms; publish returned in ${fmt(r.publishMs)} ms; delay p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, slowest stream (median round) ${fmt(r.slowestMedian)} ms; lost ${r.lost}`)
      results.push(r)
    } finally {
      await dev.stop()
    }
    // The last run's thousands of loopback ports linger in TIME_WAIT for a minute; reused at once, some of
    // them reset the next run's connections.
    if (n >= 1000) await new Promise((r) => setTimeout(r, 65_000))
  }
}

writeSection('workers-fanout', `
## Listen fan-out through a hub Durable Object (wrangler dev)

\`node --import tsx bench/workers-fanout.ts --streams ${values.streams} --rounds ${ROUNDS} --relays ${values.relays}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()},
wrangler 4.86.0 (\`scripts/dev.sh\`: workerd behind wrangler's local proxy). N listen streams subscribe to the tools
list, one topic, so one shard: with 0 relays its McpHub holds all N WebSockets; with R relays (\`MCP_HUB_RELAYS\`)
each stream's socket is on one of R relay hubs, picked at random, and the shard's hub calls each relay once per
publish. Each round, a \`tools/call\` on another connection changes the list. Delay = arrival on a stream minus the
moment the tool call was sent, over every stream and ${ROUNDS} rounds. Per publish, whatever N: Durable Object
requests = 1 (the Worker to the shard's hub) + the relays that hold streams (the hub to each); WebSocket messages
= N (one per stream's socket, sent by the object that holds it; hub-tree.ts).

| relays | streams | open all | tool call (publish returned) p50 | delay p50 | delay p99 | slowest stream, median round | lost | DO requests / publish | sockets on one object |
|---|---|---|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.relays} | ${r.streams} | ${(r.openMs / 1000).toFixed(1)} s | ${fmt(r.publishMs)} ms | ${fmt(r.p50)} ms | ${fmt(r.p99)} ms | ${fmt(r.slowestMedian)} ms | ${r.lost} | ${1 + Math.min(r.relays, r.streams)} | ${r.relays === 0 ? r.streams : `~${Math.ceil(r.streams / r.relays)}`} |`).join('\n')}

Locally every Worker request and the hub share one workerd process and the machine's 2 cores with the load
generator, so the figures bound what one hub does under load; on Cloudflare each Worker invocation runs apart.
4,000 streams is about the most this machine holds under \`wrangler dev\`: its workerd keeps some 4.2 file descriptors
per open stream, and a process here may hold 20,000 (6,000 and 8,000 failed with the descriptors used up, relays or not).
`)
writeModel(results)
