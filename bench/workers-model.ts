/**
 * One topic to 1,000,000 listen streams on Workers, modelled from what bench/workers-fanout.ts measured under
 * wrangler dev: the cost of one socket's send on one object (the slope of the publish's time over the
 * streams on one hub) and the relay's extra hop (the publish's time with relays against without, at the
 * fewest streams). Written beside the measured table, from the same run.
 */
import { fmt, writeSection } from './report.js'

interface Measured { relays: number; streams: number; publishMs: number; p99: number }

const STREAMS = 1_000_000
// Cloudflare's published prices (Workers Paid, Durable Objects): requests, and duration at 128 MB an object.
const PER_REQUEST = 0.15 / 1e6
const PER_GB_S = 12.5 / 1e6
const OBJECT_GB = 0.128
// A Worker (or object) waits on at most 6 outgoing connections at once; whether DO RPC counts is not said.
const AT_ONCE = 6
// A Durable Object call between machines, for the column that does not take the local hop as it is.
const SLOW_HOP_MS = 20

export function writeModel(results: Measured[]): void {
  const direct = results.filter((r) => r.relays === 0).sort((a, b) => a.streams - b.streams)
  const relayed = results.filter((r) => r.relays > 0).sort((a, b) => a.streams - b.streams)
  const [few, many] = [direct[0], direct.at(-1)]
  if (!few || !many || few === many || !relayed[0]) return
  const sendMs = Math.max(0, (many.publishMs - few.publishMs) / (many.streams - few.streams))
  // The relay's call: the tool call with relays, against the same call without them less its own sends
  // (a relay answers before it sends, so its sends are not in the call).
  const alone = direct.find((r) => r.streams === relayed[0]!.streams)!
  const hopMs = Math.max(0, relayed[0].publishMs - (alone.publishMs - alone.streams * sendMs))
  const baseMs = few.p99
  const rows = [25_000, 20_000, 10_000].map((perObject) => {
    const relays = Math.ceil(STREAMS / perObject)
    // A relay answers its root's call before it sends (hub.ts): a call lasts one hop, the sends follow it.
    const sendsMs = perObject * sendMs
    const awakeGbS = (relays * sendsMs / 1000) * OBJECT_GB
    return {
      perObject, relays, requests: 1 + relays, sendsMs,
      parallelP99: baseMs + hopMs + sendsMs, wavesP99: baseMs + Math.ceil(relays / AT_ONCE) * hopMs + sendsMs,
      slowHopsP99: baseMs + Math.ceil(relays / AT_ONCE) * SLOW_HOP_MS + sendsMs,
      cost: (1 + relays) * PER_REQUEST + awakeGbS * PER_GB_S,
    }
  })
  // One Durable Object per session (the agents McpAgent): each publish is told to every session's object.
  const perSession = STREAMS * PER_REQUEST
  writeSection('workers-model', `
## Workers: one topic to 1,000,000 listen streams (a model from the measured figures above)

Measured above, on this machine: one socket's send on one object costs ${fmt(sendMs * 1000)} µs (the tool call's time
with ${many.streams} streams on one hub against ${few.streams}: ${fmt(many.publishMs)} ms and ${fmt(few.publishMs)} ms; it includes the
Worker-side work sharing the 2 cores, so it is an upper bound); the relay's call adds ${fmt(hopMs)} ms (the tool call with
${relayed[0].relays} relays, ${fmt(relayed[0].publishMs)} ms, against the call without them less its sends, at ${relayed[0].streams} streams: locally the
objects share one process, so a hop costs next to nothing; the last p99 column assumes ${SLOW_HOP_MS} ms a hop between machines); delivery at few streams has p99 ${fmt(baseMs)} ms.

| sockets per relay | relay objects (+1 root) | DO requests / publish | one relay's sends | p99, relays called at once | p99, 6 calls at a time | the same, ${SLOW_HOP_MS} ms a hop | cost / publish |
|---|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.perObject.toLocaleString('en')} | ${r.relays} | ${r.requests} | ${fmt(r.sendsMs)} ms | ${fmt(r.parallelP99)} ms | ${fmt(r.wavesP99)} ms | ${fmt(r.slowHopsP99)} ms | $${r.cost.toFixed(6)} |`).join('\n')}

Assumptions: streams spread evenly (random choice, a full relay passed over); each relay's sends take the
measured per-socket time, one after another, and relays send in parallel (they are separate objects); a relay
answers its root's call before it sends, so a call lasts one hop; the root calls every relay at once, or, if
Cloudflare's 6 simultaneous outgoing connections apply to Durable Object RPC (its limits page lists fetch, KV,
Cache, R2, Queues and connect, not RPC), 6 at a time (the last two columns: a hop per 6 relays); the Worker side (SSE to the client) adds what it does
at few streams, since each stream's Worker runs apart; prices: $0.15 per million requests, $12.50 per million
GB-s at 128 MB an object, duration billed only while a relay sends (sockets are hibernatable). Per listen-hour:
one request per stream to open its socket (listen streams last at most an hour, \`listen.maxLifetimeMs\`); keep-alives
stay in the Worker, so ${STREAMS.toLocaleString('en')} streams cost ${STREAMS.toLocaleString('en')} requests an hour ($${(STREAMS * PER_REQUEST).toFixed(2)}) and no duration while
nothing is published. One Durable Object per session (the agents McpAgent) tells each session's object of each
change: ${STREAMS.toLocaleString('en')} requests per publish ($${perSession.toFixed(2)}), against ${rows[1]!.requests} here.
`)
}
