/**
 * One load-generating process of the listen fan-out benchmark, driven over IPC: it opens its share of the
 * streams on raw sockets and records when each notification arrives. Raw sockets rather than node:http:
 * an http.ClientRequest with its parser and IncomingMessage costs this side several times the CPU per
 * delivery, which at 50,000 streams on 2 cores shows up in the server's delay figures. A process holds one
 * file descriptor per stream, so the streams are spread over several processes to stay under `ulimit -n`,
 * and over several loopback source addresses, since one address has only about 28,000 ephemeral ports.
 */
import { connect, type Socket } from 'node:net'

/** `batch`: streams opened at once by this process (the server answers all clients' batches together). */
export interface OpenOrder { type: 'open'; url: string; first: number; count: number; rounds: number; addresses: string[]; batch: number }
export interface RoundOrder { type: 'round'; round: number; t0: number; timeoutMs: number }

const now = () => performance.timeOrigin + performance.now()
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const ACK = 'acknowledged'
const CHANGED = 'list_changed'

let sockets: Socket[] = []
let arrivals = new Float64Array(0)
let got = new Uint16Array(0)
let rounds = 0

function request(url: URL, id: number): string {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } })
  return `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: text/event-stream\r\n` +
    `mcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** Resolves on the stream's acknowledgement; from then on counts each list change it carries. */
function open(url: URL, id: number, slot: number, localAddress: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress })
    sockets[slot] = socket
    let acked = false
    // A marker split over two reads is found in the tail of the first joined to the second.
    let tail = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      const t = now()
      const text = tail + chunk
      tail = text.slice(-(CHANGED.length - 1))
      if (!acked) {
        if (!text.startsWith('HTTP/1.1 200') && text.startsWith('HTTP/')) return reject(new Error(text.split('\r\n')[0]))
        if (!text.includes(ACK)) return
        acked = true
        resolve()
        return
      }
      for (let at = text.indexOf(CHANGED); at >= 0; at = text.indexOf(CHANGED, at + 1)) {
        const n = got[slot]!
        if (n < rounds) arrivals[slot * rounds + n] = t
        got[slot] = n + 1
      }
    })
    socket.on('error', (e) => (acked ? undefined : reject(e)))
    socket.write(request(url, id))
  })
}

async function openAll(order: OpenOrder) {
  const url = new URL(order.url)
  rounds = order.rounds
  sockets = new Array(order.count)
  arrivals = new Float64Array(order.count * rounds)
  got = new Uint16Array(order.count)
  for (let i = 0; i < order.count; i += order.batch) {
    await Promise.all(Array.from({ length: Math.min(order.batch, order.count - i) }, (_, j) =>
      open(url, order.first + i + j, i + j, order.addresses[(i + j) % order.addresses.length]!)))
  }
}

/** Delay of each stream's delivery of this round; null for a stream that has none by the deadline (lost). */
async function collect(order: RoundOrder): Promise<(number | null)[]> {
  const deadline = Date.now() + order.timeoutMs
  const behind = () => got.some((n) => n <= order.round)
  while (behind() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
  return Array.from(got, (n, slot) => (n > order.round ? arrivals[slot * rounds + order.round]! - order.t0 : null))
}

// Gone with the benchmark, whichever way it ends.
process.on('disconnect', () => process.exit(1))
process.on('message', async (m: OpenOrder | RoundOrder | { type: 'close' }) => {
  if (m.type === 'open') {
    try {
      await openAll(m)
      process.send!({ type: 'opened' })
    } catch (e) {
      process.send!({ type: 'failed', error: String(e) })
    }
  } else if (m.type === 'round') {
    process.send!({ type: 'round', delays: await collect(m) })
  } else {
    for (const socket of sockets) socket?.destroy()
    process.exit(0)
  }
})
