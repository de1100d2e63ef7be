/**
 * Listen fan-out: N listen streams on Node server processes (one, or `--servers K` sharing the backplane,
 * the streams spread evenly, every publish made on the first), then publishes; reports memory per stream
 * and publish-to-delivery delay over all deliveries, for the in-memory and the Redis backplanes.
 *   npm run build && node --import tsx bench/listen-fanout.ts [--streams 10000] [--rounds 20] [--backplane memory,redis,redis-cluster]
 *     [--servers 1] [--clients N] [--addresses N] [--snapshot DIR] [--floor]
 * The load comes from `--clients` processes (default one per 15,000 streams: a process holds one descriptor
 * per socket), from `--addresses` loopback source addresses (default one per 5,000 streams: one address has
 * ~28,000 ephemeral ports, fewer to bind() from, and each run takes addresses of its own). `--snapshot DIR` writes the server's heap before and after the
 * streams open, for `bench/heap-diff.mjs`. The server holds every stream in one process: it needs
 * `ulimit -Hn` above the stream count (the bench raises the soft limit itself, and says so when it cannot).
 * `--floor` also measures bench/servers/fanout-floor.mjs: the same streams on bare node:http, Node's own share.
 */
import type { ChildProcess } from 'node:child_process'
import { parseArgs } from 'node:util'
import { fmt, machine, percentile, writeSection } from './report.js'
import type { OpenOrder, RoundOrder } from './fanout-client.js'
import { fdShortfall, startChild } from './fanout-processes.js'
import { ownRedisCluster } from '../test/helpers/redis-cluster.js'

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '20' }, backplane: { type: 'string', default: 'memory,redis' },
    servers: { type: 'string', default: '1' }, clients: { type: 'string' }, addresses: { type: 'string' }, snapshot: { type: 'string' }, floor: { type: 'boolean', default: false },
  },
})
const STREAMS = Number(values.streams)
const ROUNDS = Number(values.rounds)
const SERVERS = Number(values.servers)
// Each client process opens its streams on one server.
const CLIENTS = Number(values.clients ?? Math.max(Math.ceil(STREAMS / 15_000), SERVERS))
const ADDRESS_COUNT = Number(values.addresses ?? Math.ceil(STREAMS / 5_000))
const ROUND_TIMEOUT_MS = 10_000
// Opens in flight at once, over all clients: more only queue in the server, some past its headers timeout.
const OPENING = 500

const shortfall = fdShortfall(Math.ceil(STREAMS / SERVERS)) ?? fdShortfall(Math.ceil(STREAMS / CLIENTS))
if (shortfall) {
  console.error(`listen-fanout: ${shortfall}`)
  process.exit(1)
}

interface Reply { type: string; [k: string]: unknown }

// A run that fails midway leaves no process behind holding thousands of sockets and ports.
const children: ChildProcess[] = []
process.on('exit', () => {
  for (const child of children) child.kill()
})

function ask(child: ChildProcess, message: object, type: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const on = (m: Reply) => {
      if (m.type !== type && m.type !== 'failed') return
      child.off('message', on)
      if (m.type === 'failed') reject(new Error(String(m.error)))
      else resolve(m)
    }
    child.on('message', on)
    child.send(message)
  })
}

async function run(kind: string, index: number) {
  // Each run its own source addresses from 127.0.0.10 on: the last run's ports stay in TIME_WAIT for a
  // minute, and other programs' connections hold ports of 127.0.0.1.
  const addresses = Array.from({ length: ADDRESS_COUNT }, (_, i) => `127.0.0.${10 + index * ADDRESS_COUNT + i}`)
  // A Redis Cluster of the run's own (three masters, a replica each, on loopback): the sharded pub/sub path.
  const cluster = kind === 'redis-cluster' ? await ownRedisCluster() : undefined
  const env = { ...process.env, BACKPLANE: kind, BENCH_PREFIX: `bench-${process.pid}-${index}:`, ...(cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {}) }
  const servers = Array.from({ length: SERVERS }, () => startChild(kind === 'floor' ? './servers/fanout-floor.mjs' : './servers/fanout.mjs', Math.ceil(STREAMS / SERVERS), env))
  const urls = await Promise.all(servers.map(async (server) => ((await new Promise<Reply>((resolve) => server.once('message', resolve))) as unknown as { url: string }).url))
  const [server] = servers as [ChildProcess]
  const shares = Array.from({ length: CLIENTS }, (_, c) => Math.floor(STREAMS / CLIENTS) + (c < STREAMS % CLIENTS ? 1 : 0))
  const clients = shares.map((share) => startChild('./fanout-client.ts', share))
  children.push(...servers, ...clients)
  if (values.snapshot) await ask(server, { type: 'snapshot', path: `${values.snapshot}/${kind}-before.heapsnapshot` }, 'snapshot')
  const memory = async () => (await Promise.all(servers.map((s) => ask(s, { type: 'memory' }, 'memory'))))
    .reduce((sum, m) => ({ rss: sum.rss + (m.rss as number), heapUsed: sum.heapUsed + (m.heapUsed as number) }), { rss: 0, heapUsed: 0 })
  const before = await memory()

  const t = Date.now()
  let first = 0
  await Promise.all(clients.map((client, c) => {
    const order: OpenOrder = { type: 'open', url: urls[c % SERVERS]!, first, count: shares[c]!, rounds: ROUNDS, addresses, batch: Math.ceil(OPENING / CLIENTS) }
    first += shares[c]!
    return ask(client, order, 'opened')
  }))
  const openMs = Date.now() - t
  const after = await memory()
  if (values.snapshot) await ask(server, { type: 'snapshot', path: `${values.snapshot}/${kind}-after.heapsnapshot` }, 'snapshot')

  const delays: number[] = []
  const lastPerRound: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const { t0 } = (await ask(server, { type: 'publish' }, 'published')) as unknown as { t0: number }
    const order: RoundOrder = { type: 'round', round, t0, timeoutMs: ROUND_TIMEOUT_MS }
    const replies = await Promise.all(clients.map((client) => ask(client, order, 'round')))
    const roundDelays = replies.flatMap((r) => (r.delays as (number | null)[]).map((d) => d ?? Infinity))
    delays.push(...roundDelays)
    lastPerRound.push(roundDelays.reduce((a, b) => Math.max(a, b), 0))
    await new Promise((r) => setTimeout(r, 100))
  }
  await Promise.all(clients.map((client) => new Promise((resolve) => client.once('exit', resolve).send({ type: 'close' }))))
  await Promise.all(servers.map((s) => new Promise((resolve) => s.once('exit', resolve).send({ type: 'stop' }))))
  await cluster?.stop()

  delays.sort((a, b) => a - b)
  lastPerRound.sort((a, b) => a - b)
  const lost = delays.filter((d) => d === Infinity).length
  const perStream = (k: 'rss' | 'heapUsed') => (after[k] - before[k]) / STREAMS
  return {
    kind, openMs, lost,
    rssPerStream: perStream('rss'), heapPerStream: perStream('heapUsed'),
    p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1)!, lastP50: percentile(lastPerRound, 50),
  }
}

const results = []
const kinds = [...values.backplane!.split(',').filter(Boolean), ...(values.floor ? ['floor'] : [])]
if (SERVERS > 1 && kinds.some((k) => k === 'memory' || k === 'floor')) {
  console.error('listen-fanout: with --servers above 1, only a shared backplane (redis, redis-cluster) reaches every process')
  process.exit(1)
}
for (const [index, kind] of kinds.entries()) {
  const r = await run(kind, index)
  console.log(`${kind}: opened ${STREAMS} streams in ${r.openMs} ms; ${fmt(r.rssPerStream / 1024)} KiB RSS and ${fmt(r.heapPerStream / 1024)} KiB heap per stream; ` +
    `publish->delivery p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms; lost ${r.lost}`)
  results.push(r)
}

const n = STREAMS.toLocaleString('en')
// The cluster comparisons keep sections of their own beside the one Redis and memory figures.
const section = !kinds.includes('redis-cluster') ? 'listen-fanout' : SERVERS > 1 ? 'listen-fanout-cluster-processes' : 'listen-fanout-cluster'
writeSection(section, `
## Listen fan-out (${n} streams on ${SERVERS > 1 ? `${SERVERS} Node processes` : 'one Node process'})

\`node --import tsx bench/listen-fanout.ts --streams ${STREAMS} --rounds ${ROUNDS} --backplane ${values.backplane}${SERVERS > 1 ? ` --servers ${SERVERS}` : ''}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
${CLIENTS} load-generating process${CLIENTS > 1 ? 'es' : ''} (\`bench/fanout-client.ts\`, raw sockets from ${ADDRESS_COUNT} loopback
address${ADDRESS_COUNT > 1 ? 'es' : ''} per run) open ${n} \`subscriptions/listen\` SSE streams to ${SERVERS > 1 ? `${SERVERS} server processes sharing the backplane, evenly` : 'one server process'}
(\`bench/servers/fanout.mjs\`, on the built package), each waiting for its acknowledgement, then the ${SERVERS > 1 ? 'first ' : ''}server is asked over IPC to publish a tools change
${ROUNDS} times${SERVERS > 1 ? ', so that the other\'s streams hear of it only through the backplane' : ''}.${kinds.includes('redis-cluster') ? ` With redis-cluster, a cluster of the run's own: three masters
(three shards), a replica each, sharded pub/sub.` : ''} Delay = time the change arrived on a stream minus the moment the server began publishing (same machine
clock); every stream's delivery counts, and one missing after ${ROUND_TIMEOUT_MS / 1000} s is lost. Memory = server RSS and
V8 heap after GC${SERVERS > 1 ? ', summed over the servers' : ''}, with the streams open minus before, per stream.

| backplane | open all streams | RSS / stream | heap / stream | delay p50 | delay p99 | max | slowest stream, median round | lost |
|---|---|---|---|---|---|---|---|---|
${results.map((r) => `| ${r.kind} | ${(r.openMs / 1000).toFixed(1)} s | ${fmt(r.rssPerStream / 1024)} KiB | ${fmt(r.heapPerStream / 1024)} KiB | ${fmt(r.p50)} ms | ${fmt(r.p99)} ms | ${fmt(r.max)} ms | ${fmt(r.lastP50)} ms | ${r.lost} |`).join('\n')}

All processes share the machine's 2 cores, so the figures include the load generators' own work of reading
${n} sockets.
`)
