/**
 * What 2025 GET streams leave behind (issue 45, finding 3): the heap of a real server (node:http, its memory
 * backplane, or Redis with --redis) after a client reconnects its session's GET stream again and again
 * (open, resources/subscribe, close; the URI unsubscribed after, so that the next stream follows it anew),
 * and after one open stream's session subscribes to URI after URI, unsubscribing from each. Each is measured after a
 * warm-up, after GC.
 *   node --expose-gc --import tsx bench/sessions-reconnect.ts [--reconnects 2000] [--pairs 20000] [--redis redis://127.0.0.1:6379] [--snapshot DIR]
 * With --snapshot, heap snapshots before and after the reconnects go to DIR, for bench/heap-diff.mjs.
 */
import { parseArgs } from 'node:util'
import { writeHeapSnapshot } from 'node:v8'
import { serve } from '../adapters/node/index.js'
import { redisBackplane } from '../adapters/redis/index.js'
import { McpServer, memoryBackplane, type Backplane, type Subscription } from '../src/index.js'
import { fmt, machine } from './report.js'

const { values } = parseArgs({ options: { reconnects: { type: 'string', default: '2000' }, pairs: { type: 'string', default: '20000' }, redis: { type: 'string' }, snapshot: { type: 'string' } } })
const RECONNECTS = Number(values.reconnects)
const PAIRS = Number(values.pairs)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('start node with --expose-gc')

const inner = values.redis ? redisBackplane({ url: values.redis, prefix: `bench-reconnect-${process.pid}:` }) : memoryBackplane()
/** Topics with an open subscription, as the server asked the backplane: what the bench waits on. */
const open = new Map<string, number>()
const count = (topic: string, by: number) => {
  const n = (open.get(topic) ?? 0) + by
  if (n > 0) open.set(topic, n)
  else open.delete(topic)
}
const backplane: Backplane = {
  kind: inner.kind,
  publish: (event) => inner.publish(event),
  async subscribe(topics, listener) {
    const s = await inner.subscribe(topics, listener)
    for (const t of topics) count(t, 1)
    let closed = false
    return {
      async close() {
        if (closed) return
        closed = true
        await s.close()
        for (const t of topics) count(t, -1)
      },
    } satisfies Subscription
  },
}

const server = new McpServer({ name: 'reconnect-bench', version: '1.0.0' })
  .tool('echo', { description: 'Echoes' }, () => 'echo')
  .resource('bench://r', { name: 'r' }, () => 'r')
  .resourceTemplate('bench://item/{id}', { name: 'item' }, (_uri, { id }) => `item ${id}`)
const running = await serve(server, { port: 0, handleSignals: false, log: false, backplane, requestState: { secret: 'bench-secret-0123456789abcdef0123456789abcdef' } })
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

async function until(condition: () => boolean, what: string, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; !condition(); await new Promise((r) => setTimeout(r, 1))) {
    if (Date.now() > end) {
      console.error(`timed out waiting for ${what}`)
      return false
    }
  }
  return true
}
const init = await fetch(running.url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } } }) })
await init.text()
const session = init.headers.get('mcp-session-id')!
let id = 0
const subscribe = async (on: boolean, uri = 'bench://r') => {
  const res = await fetch(running.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }) })
  await res.text()
}
/** Opens the session's GET stream once it follows its session's topic; aborting it is the client leaving. */
async function openStream(): Promise<AbortController> {
  const leave = new AbortController()
  void fetch(running.url, { headers: { ...HEADERS, 'mcp-session-id': session }, signal: leave.signal }).then((r) => r.body!.pipeTo(new WritableStream(), { signal: leave.signal })).catch(() => {})
  await until(() => [...open.keys()].some((t) => t.startsWith('session:')), 'the stream to follow its session')
  return leave
}
async function reconnect(): Promise<void> {
  const leave = await openStream()
  await subscribe(true)
  await until(() => open.has('resource:bench://r'), 'the stream to follow the resource')
  leave.abort()
  await until(() => open.size === 0, 'the stream to close')
  await subscribe(false)
}
const heap = () => {
  gc!()
  gc!()
  return process.memoryUsage().heapUsed
}
const topics = () => ('topics' in inner ? `${inner.topics} topics` : `${inner.channels} channels`)

for (let i = 0; i < 200; i++) await reconnect()
const before = heap()
if (values.snapshot) writeHeapSnapshot(`${values.snapshot}/reconnect-before.heapsnapshot`)
let started = Date.now()
for (let i = 0; i < RECONNECTS; i++) await reconnect()
const afterReconnects = heap()
if (values.snapshot) writeHeapSnapshot(`${values.snapshot}/reconnect-after.heapsnapshot`)
const reconnectMs = Date.now() - started
const perReconnect = (afterReconnects - before) / RECONNECTS

// One stream left open while its session subscribes to a URI and unsubscribes from it, a new one each time.
const leave = await openStream()
const settled = open.size
for (let i = 0; i < 200; i++) await subscribe(i % 2 === 0, `bench://item/warm-${i >> 1}`)
await until(() => open.size === settled, 'the warm-up pairs to settle')
const pairsBefore = heap()
started = Date.now()
for (let i = 0; i < PAIRS; i++) {
  await subscribe(true, `bench://item/${i}`)
  await subscribe(false, `bench://item/${i}`)
}
const held = await until(() => open.size === settled, 'the stream to give back what it unsubscribed', 2000) ? settled : open.size
const afterPairs = heap()
const pairsMs = Date.now() - started
leave.abort()
await until(() => open.size === 0, 'the stream to close')

await running.close()
if ('close' in inner) await (inner as { close(): Promise<void> }).close()
console.log(`2025 GET stream reconnects, ${inner.kind} backplane; ${machine()}
  ${RECONNECTS} reconnects (open GET, resources/subscribe, close): heap ${fmt(before / 2 ** 20, 2)} MB -> ${fmt(afterReconnects / 2 ** 20, 2)} MB, ${fmt(perReconnect, 0)} bytes per reconnect (${fmt(reconnectMs / RECONNECTS, 2)} ms each); backplane after: ${topics()}
  ${PAIRS} subscribe/unsubscribe pairs on one open stream: heap ${fmt(pairsBefore / 2 ** 20, 2)} MB -> ${fmt(afterPairs / 2 ** 20, 2)} MB, ${fmt((afterPairs - pairsBefore) / PAIRS, 0)} bytes per pair (${fmt(pairsMs / PAIRS, 2)} ms each); topics the stream held: ${held} (${settled} at the start)`)
