/**
 * Limits of listen streams (issue 12, finding 1): per client (a principal, or an anonymous client's network
 * address), per runtime, and on the size of a filter. Over a limit the answer is a JSON-RPC error with 429
 * or 503 and Retry-After, before any stream byte; a closed stream gives its place back. And the bytes of
 * request bodies a handler holds at once (finding 2).
 */
import { once } from 'node:events'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, type HandlerOptions, McpServer, type RuntimeContext } from '../../src/index.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, openListen, startEverything } from '../helpers/server.js'
import { sseMessages } from '../helpers/wire.js'
import type { RunningServer } from '../../adapters/node/index.js'

const server = () => new McpServer({ name: 'limits', version: '1' }).tool('t', {}, () => 't')
const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
const listenRequest = (headers: Record<string, string> = {}, url = 'http://127.0.0.1/mcp') => new Request(url, {
  method: 'POST', headers: { ...modernHeaders('subscriptions/listen', params), ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params }),
})

/** A listen that must be refused: its status, Retry-After and JSON-RPC error, read from a plain JSON answer. */
async function refusal(response: Promise<Response>) {
  const res = await response
  expect(res.headers.get('content-type')).toBe('application/json')
  return { status: res.status, retryAfter: res.headers.get('retry-after'), error: (await res.json()).error }
}

const opened: { cancel(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.cancel()))
})
async function open(handler: (r: Request, p?: RuntimeContext) => Promise<Response>, headers: Record<string, string> = {}, platform?: RuntimeContext) {
  const stream = await openListen((r) => handler(r, platform), { toolsListChanged: true }, 'l', {}, headers)
  await stream.next()
  opened.push(stream)
  return stream
}

describe('listen streams per client', () => {
  const handler = (listen: HandlerOptions['listen']) => createFetchHandler(server(), { auth: bearerAuth(namedUsers()), listen })

  it('refuses a principal over its share with 429 and Retry-After, others still get in, and a closed stream frees its place', async () => {
    const h = handler({ maxStreamsPerClient: 2 })
    const first = await open(h, as('alice'))
    await open(h, as('alice'))
    expect(await refusal(h(listenRequest(as('alice'))))).toEqual({
      status: 429, retryAfter: '10',
      error: { code: -32000, message: 'This client has 2 listen streams open, its most: close one before opening another', data: { retryAfterMs: 10_000 } },
    })
    await open(h, as('bob'))
    await first.cancel()
    await new Promise((r) => setTimeout(r, 20))
    await open(h, as('alice'))
  })

  it('counts anonymous requests by network address, and one without an address only against the total', async () => {
    const h = createFetchHandler(server(), { listen: { maxStreamsPerClient: 1 } })
    await open(h, {}, { clientAddress: '10.0.0.1' })
    expect((await refusal(h(listenRequest(), { clientAddress: '10.0.0.1' }))).status).toBe(429)
    await open(h, {}, { clientAddress: '10.0.0.2' })
    await open(h)
    await open(h)
  })

  it('counts an IPv6 client by its /64, and an IPv4-mapped one as its IPv4 address', async () => {
    const h = createFetchHandler(server(), { listen: { maxStreamsPerClient: 1 } })
    await open(h, {}, { clientAddress: '2001:db8:0:1::5' })
    expect((await refusal(h(listenRequest(), { clientAddress: '2001:0db8:0000:0001:ffff:1:2:3' }))).status).toBe(429)
    await open(h, {}, { clientAddress: '2001:db8:0:2::5' })
    await open(h, {}, { clientAddress: '::ffff:10.0.0.1' })
    expect((await refusal(h(listenRequest(), { clientAddress: '10.0.0.1' }))).status).toBe(429)
  })

  it('behind a proxy the deployer names, counts by the address the proxy appended, not by the proxy', async () => {
    const proxy = { clientAddress: '10.9.9.9' }
    const h = createFetchHandler(server(), { listen: { maxStreamsPerClient: 1 }, clientAddressHeader: 'X-Forwarded-For' })
    await open(h, { 'x-forwarded-for': '203.0.113.7' }, proxy)
    // What a client writes into the header itself comes first; the proxy appends what it saw.
    expect((await refusal(h(listenRequest({ 'x-forwarded-for': '198.51.100.1, 203.0.113.7' }), proxy))).status).toBe(429)
    await open(h, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' }, proxy)
    // Without the header, the peer's address counts.
    await open(h, {}, proxy)
    expect((await refusal(h(listenRequest(), proxy))).status).toBe(429)
  })

  it('without a proxy header named, a client cannot pick its share by sending one', async () => {
    const h = createFetchHandler(server(), { listen: { maxStreamsPerClient: 1 } })
    await open(h, { 'x-forwarded-for': '203.0.113.1' }, { clientAddress: '10.0.0.1' })
    expect((await refusal(h(listenRequest({ 'x-forwarded-for': '203.0.113.2' }), { clientAddress: '10.0.0.1' }))).status).toBe(429)
  })
})

describe('listen streams per runtime', () => {
  it('refuses past maxStreams with 503 and Retry-After, whoever asks', async () => {
    const h = createFetchHandler(server(), { auth: bearerAuth(namedUsers()), listen: { maxStreams: 2 } })
    await open(h, as('alice'))
    await open(h, as('bob'))
    expect(await refusal(h(listenRequest(as('carol'))))).toMatchObject({ status: 503, retryAfter: '10', error: { code: -32000, message: 'This server holds 2 listen streams, its most: try again later' } })
  })

  it('a closed stream gives its place in the total back, and so does one whose subscribe failed', async () => {
    const h = createFetchHandler(server(), { listen: { maxStreams: 1 } })
    const first = await open(h)
    expect((await refusal(h(listenRequest()))).status).toBe(503)
    await first.cancel()
    await new Promise((r) => setTimeout(r, 20))
    await open(h)

    const errors: unknown[] = []
    const refusing = { publish: async () => {}, subscribe: () => Promise.reject(new Error('backplane down')) }
    const failing = createFetchHandler(server(), { backplane: refusing, listen: { maxStreams: 1 }, onError: (e) => void errors.push(e) })
    for (const _ of [1, 2]) {
      const { error } = await refusal(failing(listenRequest()))
      expect(error).toEqual({ code: -32603, message: expect.stringMatching(/^Internal error \(error id \w+\)$/) })
    }
    expect(errors).toEqual([new Error('backplane down'), new Error('backplane down')])
  })
})

describe('filter size', () => {
  it('refuses resource URIs longer than maxFilterChars in all (-32602), before anything is held', async () => {
    const s = server().resourceTemplate('test://{id}', { name: 'n' }, (uri) => uri)
    const h = createFetchHandler(s, { listen: { maxFilterChars: 100 } })
    const filter = (n: number) => ({ resourceSubscriptions: Array.from({ length: n }, (_, i) => `test://${String(i).padStart(13, '0')}`) })
    const ok = await openListen(h, filter(5), 'ok')
    expect((await ok.next()).params.notifications.resourceSubscriptions).toHaveLength(5)
    await ok.cancel()
    const p = { notifications: filter(6), _meta: META_2026() }
    const res = await h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('subscriptions/listen', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: p }) }))
    expect((await res.json()).error).toEqual({ code: -32602, message: 'notifications.resourceSubscriptions may name at most 100 characters of URIs' })
  })
})

describe('on Node', () => {
  let running: RunningServer | undefined
  afterEach(() => running?.close())

  it("takes an anonymous client's share from its socket address", async () => {
    running = await startEverything({ listen: { maxStreamsPerClient: 1 } })
    const url = running.url
    const first = await openListen((r) => fetch(new Request(url, r)), { toolsListChanged: true }, 'a')
    opened.push(first)
    await first.next()
    expect((await refusal(fetch(listenRequest({}, url)))).status).toBe(429)
  })

  it('cuts a request whose body does not arrive within requestTimeoutMs with 408, and leaves a listen stream open past it', async () => {
    running = await startEverything({ requestTimeoutMs: 1000, headersTimeoutMs: 1000 })
    const stream = await openListen((r) => fetch(new Request(running!.url, r)), { toolsListChanged: true }, 'kept')
    opened.push(stream)
    await stream.next()
    const { port } = new URL(running.url)
    const socket = connect(Number(port), '127.0.0.1')
    let reply = ''
    socket.on('data', (c) => (reply += c))
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`)
    await once(socket, 'close')
    expect(reply).toMatch(/^HTTP\/1\.1 408 /)
    await running.notify.toolsChanged()
    expect((await stream.next()).method).toBe('notifications/tools/list_changed')
  })
})

describe('request bodies held at once', () => {
  it('refuses a body that would take the handler past maxInFlightBytes with 503, until the requests holding it are answered', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const s = new McpServer({ name: 'held', version: '1' }).tool('wait', {}, async () => (await gate, 'done'))
    const h = createFetchHandler(s, { maxInFlightBytes: 300 })
    const call = () => {
      const p = { name: 'wait', arguments: {}, _meta: META_2026() }
      return h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }) }))
    }
    const first = call()
    await new Promise((r) => setTimeout(r, 20))
    const busy = await call()
    expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '1'])
    expect((await busy.json()).error).toEqual({ code: -32000, message: 'The server is reading as many request bodies as it holds at once: try again shortly' })
    release()
    expect((await first).status).toBe(200)
    expect((await call()).status).toBe(200)
  })

  it('refuses a body that does not fit once its bytes arrive, on Node', async () => {
    const running = await startEverything({ maxInFlightBytes: 1000 })
    try {
      const p = { name: 'add', arguments: { a: 1, b: 2, pad: 'x'.repeat(1500) }, _meta: META_2026() }
      const res = await fetch(running.url, { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }) })
      expect(res.status).toBe(503)
      const small = { name: 'add', arguments: { a: 1, b: 2 }, _meta: META_2026() }
      expect((await fetch(running.url, { method: 'POST', headers: modernHeaders('tools/call', small), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: small }) })).status).toBe(200)
    } finally {
      await running.close()
    }
  })
})

describe('shutdown', () => {
  it("aborts what still runs at the end of the grace period, and tells each client: 503 for a JSON answer, a last error on a stream", async () => {
    const aborted: string[] = []
    const forever = (name: string) => (_a: unknown, ctx: { signal: AbortSignal; progress(n: number): void }) => {
      ctx.signal.addEventListener('abort', () => aborted.push(name))
      if (name === 'streaming') ctx.progress(1)
      return new Promise<string>(() => {}) // ignores its signal: the client must be told all the same
    }
    const s = new McpServer({ name: 'stuck', version: '1' }).tool('plain', {}, forever('plain')).tool('streaming', {}, forever('streaming'))
    const running = await startEverything({ shutdownGraceMs: 200 }, s)
    const call = (name: string, meta: Record<string, unknown> = {}) => {
      const p = { name, arguments: {}, _meta: { ...META_2026(), ...meta } }
      return fetch(running.url, { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: name, method: 'tools/call', params: p }) })
    }
    const plain = call('plain')
    const streaming = await call('streaming', { progressToken: 'p' })
    expect(streaming.headers.get('content-type')).toBe('text/event-stream')
    await new Promise((r) => setTimeout(r, 50))
    const closed = running.close()
    const answer = await plain
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '1'])
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', id: 'plain', error: { code: -32000, message: 'The server shut down before this request finished: send it again', data: { retryAfterMs: 1000 } } })
    const messages = []
    for await (const m of sseMessages(streaming.body!)) messages.push(m)
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', id: 'streaming', error: { code: -32000, message: 'The server shut down before this request finished: send it again', data: { retryAfterMs: 1000 } } })
    await closed
    expect(aborted.sort()).toEqual(['plain', 'streaming'])
  })
})

describe('handler time', () => {
  it('ends a streamed answer (progress sent already) with the -32603 that says why, once the time limit stops it', async () => {
    const s = new McpServer({ name: 'slow', version: '1' }).tool('hang', {}, (_a, ctx) => {
      ctx.progress(1, 2)
      return new Promise<string>(() => {})
    })
    const h = createFetchHandler(s, { handlerTimeoutMs: 100 })
    const p = { name: 'hang', arguments: {}, _meta: META_2026({}, { progressToken: 'p-1' }) }
    const res = await h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }) }))
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const sent = []
    for await (const m of sseMessages(res.body!)) sent.push(m)
    expect(sent.map((m: Record<string, any>) => m.method ?? m.error?.message)).toEqual(['notifications/progress', "The request ran past the server's time limit (100 ms) and was stopped"])
  })

  it('aborts a handler that runs past handlerTimeoutMs and answers -32603; listen streams are not cut by it', async () => {
    let stopped = false
    const s = new McpServer({ name: 'slow', version: '1' }).tool('hang', {}, (_a, ctx) => {
      ctx.signal.addEventListener('abort', () => (stopped = true))
      return new Promise<string>(() => {})
    })
    const h = createFetchHandler(s, { handlerTimeoutMs: 100 })
    const p = { name: 'hang', arguments: {}, _meta: META_2026() }
    const res = await h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', p), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: p }) }))
    expect([res.status, (await res.json()).error]).toEqual([200, { code: -32603, message: "The request ran past the server's time limit (100 ms) and was stopped" }])
    expect(stopped).toBe(true)
    const stream = await open(h)
    await new Promise((r) => setTimeout(r, 250))
    await h.notify.toolsChanged()
    expect((await stream.next()).method).toBe('notifications/tools/list_changed')
  })
})
