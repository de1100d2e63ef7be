/**
 * Slow bodies (issue 45, finding 1): a body's bytes count against what the handler holds as they arrive,
 * never as its Content-Length declares them; each client holds at most its share of that; a body that
 * trickles in past `bodyTimeoutMs` is refused with 408 and its connection let go.
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { BodyBudget, BodyHold, readBody } from '../../src/http/body.js'
import type { RunningServer } from '../../adapters/node/index.js'
import { META_2026, modernHeaders, startEverything } from '../helpers/server.js'

const callBody = (id: number | string, args: Record<string, unknown> = { a: 1, b: 2 }) => {
  const params = { name: 'add', arguments: args, _meta: META_2026() }
  return { headers: modernHeaders('tools/call', params), body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) }
}

/** A POST that declares `declared` bytes and sends the first `sent` of them, then holds the connection. */
async function trickle(url: string, declared: number, sent: string): Promise<{ socket: Socket; reply: () => string }> {
  const { hostname, port, pathname } = new URL(url)
  const socket = connect(Number(port), hostname)
  await once(socket, 'connect')
  let reply = ''
  socket.on('data', (c) => (reply += c))
  socket.on('error', () => {})
  const { headers } = callBody(1)
  const lines = Object.entries({ ...headers, host: `${hostname}:${port}`, 'content-length': String(declared) }).map(([k, v]) => `${k}: ${v}`)
  socket.write(`POST ${pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${sent}`)
  return { socket, reply: () => reply }
}

let running: RunningServer | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await running?.close()
  running = undefined
})

describe('slow bodies on Node', () => {
  it('bodies declared at the limit and sent a byte at a time hold only what arrived: ordinary calls are all answered', async () => {
    // The attack of the review: four connections declare 4 MB each (the whole 16 MB budget) and trickle.
    running = await startEverything({ shutdownGraceMs: 100 })
    const attackers = await Promise.all(Array.from({ length: 4 }, () => trickle(running!.url, 4 * 1024 * 1024, '{"jsonrpc":"2.0",')))
    sockets.push(...attackers.map((a) => a.socket))
    const drip = setInterval(() => attackers.forEach((a) => a.socket.write(' ')), 20)
    try {
      const statuses = []
      for (let i = 0; i < 20; i++) {
        const { headers, body } = callBody(i)
        statuses.push((await fetch(running.url, { method: 'POST', headers, body })).status)
      }
      expect(statuses).toEqual(Array(20).fill(200))
    } finally {
      clearInterval(drip)
    }
  })

  it('a body still arriving after bodyTimeoutMs gets 408 with a JSON-RPC error, and the connection is closed', async () => {
    running = await startEverything({ bodyTimeoutMs: 300, shutdownGraceMs: 100 })
    const slow = await trickle(running.url, 1000, '{"jsonrpc":"2.0"')
    sockets.push(slow.socket)
    const drip = setInterval(() => slow.socket.write(' '), 50)
    try {
      await once(slow.socket, 'close')
    } finally {
      clearInterval(drip)
    }
    const reply = slow.reply()
    expect(reply).toMatch(/^HTTP\/1\.1 408 /)
    expect(JSON.parse(reply.slice(reply.indexOf('{')))).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Request body not received within 300 ms' } })
    const { headers, body } = callBody(2)
    expect((await fetch(running.url, { method: 'POST', headers, body })).status).toBe(200)
  })

  it('a body that arrives in pieces within the time is read whole', async () => {
    running = await startEverything({ bodyTimeoutMs: 2000, shutdownGraceMs: 100 })
    const { body } = callBody('pieces')
    const client = await trickle(running.url, Buffer.byteLength(body), body.slice(0, 10))
    sockets.push(client.socket)
    await new Promise((r) => setTimeout(r, 50))
    client.socket.write(body.slice(10, 40))
    await new Promise((r) => setTimeout(r, 50))
    client.socket.write(body.slice(40))
    while (!client.reply().includes('"result"')) await new Promise((r) => setTimeout(r, 10))
    expect(client.reply()).toMatch(/^HTTP\/1\.1 200 /)
    expect(client.reply()).toContain('"id":"pieces"')
  })
})

describe('each client holds a share of the bodies in flight', () => {
  it("a client over its share gets 429 while another client's bodies are still taken", async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const s = new McpServer({ name: 'shares', version: '1' }).tool('wait', {}, async () => (await gate, 'done'))
    const h = createFetchHandler(s, { maxInFlightBytes: 4000, maxInFlightBytesPerClient: 1000, maxBodyBytes: 1000 })
    const call = (address: string) => {
      const p = { name: 'wait', arguments: { pad: 'x'.repeat(600) }, _meta: META_2026() }
      return h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }) }), { clientAddress: address })
    }
    const first = call('192.0.2.1')
    await new Promise((r) => setTimeout(r, 20))
    const over = await call('192.0.2.1')
    expect([over.status, over.headers.get('retry-after')]).toEqual([429, '1'])
    expect((await over.json()).error).toEqual({ code: -32000, message: 'This client is sending as many request bodies as it may at once: try again once its other requests are answered' })
    const other = call('192.0.2.2')
    release()
    expect([(await first).status, (await other).status]).toEqual([200, 200])
    expect((await call('192.0.2.1')).status).toBe(200)
  })

  it('the budget counts each client apart and gives back exactly what it took', () => {
    const budget = new BodyBudget(100, 60)
    const a = new BodyHold('a')
    const b = new BodyHold('b')
    const anonymous = new BodyHold(undefined)
    budget.take(60, a)
    expect(() => budget.take(1, a)).toThrow(expect.objectContaining({ status: 429 }))
    budget.take(40, b)
    expect(() => budget.take(1, anonymous)).toThrow(expect.objectContaining({ status: 503 }))
    expect(budget.held).toEqual({ bytes: 100, clients: 2 })
    budget.give(a)
    expect([a.bytes, budget.held]).toEqual([0, { bytes: 40, clients: 1 }])
    budget.take(60, anonymous)
    expect(budget.held).toEqual({ bytes: 100, clients: 1 })
    budget.give(b)
    budget.give(anonymous)
    budget.give(anonymous)
    expect(budget.held).toEqual({ bytes: 0, clients: 0 })
  })

  it('takes a streamed body chunk by chunk: a body over the budget is refused once the bytes that overflow it arrive', async () => {
    const budget = new BodyBudget(10, 10)
    const hold = new BodyHold('c')
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        sent++
        c.enqueue(new Uint8Array(4))
      },
    })
    await expect(readBody(new Request('http://127.0.0.1/mcp', { method: 'POST', body, duplex: 'half' } as RequestInit), { maxBytes: 100 }, budget, hold))
      .rejects.toMatchObject({ status: 429 })
    expect([hold.bytes, sent >= 3]).toEqual([8, true])
  })

  it('a web stream body (Workers, any Fetch host) still arriving after the timeout is refused with 408 and cancelled', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"jsonrpc":'))
      },
      cancel() {
        cancelled = true
      },
    })
    const budget = new BodyBudget(100, 100)
    const hold = new BodyHold(undefined)
    await expect(readBody(new Request('http://127.0.0.1/mcp', { method: 'POST', body, duplex: 'half' } as RequestInit), { maxBytes: 100, timeoutMs: 100 }, budget, hold))
      .rejects.toMatchObject({ status: 408, message: 'Request body not received within 100 ms' })
    expect([cancelled, hold.bytes]).toEqual([true, 11])
  })
})
