/**
 * Messages larger than the backlog bound (src/http/sse.ts) over real HTTP, on both sinks: Node's own connection
 * (serve(), adapters/node/sse.ts) and a ReadableStream body (the fetch handler under @hono/node-server, the
 * sink Workers and Lambda have). A 2 MB result after progress arrives whole, so do large logs before it and a
 * resumed large result; one over MAX_MESSAGE is an error saying so; a client that stops reading is still cut.
 */
import { serve as honoServe } from '@hono/node-server'
import { connect, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, memoryTaskStore, resumable, type HandlerOptions } from '../../src/index.js'
import { MAX_MESSAGE } from '../../src/http/sse.js'
import { serve } from '../../adapters/node/index.js'
import { deferred } from '../helpers/async.js'
import { META_2026, modernHeaders, TEST_SECRET } from '../helpers/server.js'
import { sseMessages } from '../helpers/wire.js'

type Message = Record<string, any>
const MB = 1_000_000
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** Each sink over a real server on a free port; resolves to its URL. */
const sinks = {
  'Node connection': async (server: McpServer, options: HandlerOptions = {}) => {
    const running = await serve(server, { port: 0, handleSignals: false, log: false, ...options })
    closers.push(() => running.close())
    return running.url
  },
  'ReadableStream body': async (server: McpServer, options: HandlerOptions = {}) => {
    const handler = createFetchHandler(server, options)
    const http = honoServe({ fetch: (request) => handler(request), port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => http.once('listening', resolve))
    closers.push(() => new Promise((resolve) => http.close(resolve)), () => handler.close())
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  },
}

const request = (id: number | string, method: string, params: Message, meta: Message = {}, capabilities: Message = {}) => {
  const withMeta = { ...params, _meta: META_2026(capabilities, meta) }
  return { headers: modernHeaders(method, withMeta), body: JSON.stringify({ jsonrpc: '2.0', id, method, params: withMeta }) }
}

/** Every message of an SSE answer, to its end. */
async function post(url: string, sent: ReturnType<typeof request>, extra: Record<string, string> = {}): Promise<Message[]> {
  const res = await fetch(url, { method: 'POST', headers: { ...sent.headers, ...extra }, body: sent.body })
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const messages: Message[] = []
  for await (const message of sseMessages(res.body!)) messages.push(message)
  return messages
}

const text = (m: Message | undefined) => m?.result?.content?.[0]?.text as string | undefined

describe.each(Object.entries(sinks))('large messages on SSE: %s', (_name, start) => {
  const server = new McpServer({ name: 'large', version: '1.0.0' })
    .tool('big', {}, async (args, ctx) => {
      ctx.progress(1)
      return 'x'.repeat((args as { bytes: number }).bytes)
    })
    .tool('chatty', {}, async (_args, ctx) => {
      ctx.log('info', 'l'.repeat(2 * MB))
      ctx.progress(1)
      ctx.log('info', 'm'.repeat(2 * MB))
      return 'r'.repeat(2 * MB)
    })

  it('a 2 MB result after a progress notification arrives whole', async () => {
    const url = await start(server)
    const messages = await post(url, request(1, 'tools/call', { name: 'big', arguments: { bytes: 2 * MB } }, { progressToken: 'p' }))
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result'])
    expect(text(messages[1])).toBe('x'.repeat(2 * MB))
  })

  it('large logs written at once, with progress between them, arrive whole, and the result after them', async () => {
    const url = await start(server)
    const messages = await post(url, request(1, 'tools/call', { name: 'chatty', arguments: {} }, { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'info' }))
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/message', 'notifications/progress', 'notifications/message', 'result'])
    expect(messages.map((m) => (m.params?.data ?? text(m))?.length)).toEqual([2 * MB, undefined, 2 * MB, 2 * MB])
  })

  it('a response over MAX_MESSAGE characters is a JSON-RPC error saying so, not a cut stream', async () => {
    const url = await start(server)
    const messages = await post(url, request(7, 'tools/call', { name: 'big', arguments: { bytes: MAX_MESSAGE } }, { progressToken: 'p' }))
    expect(messages.at(-1)).toEqual({
      jsonrpc: '2.0', id: 7,
      error: { code: -32603, message: expect.stringMatching(new RegExp(`^The response is too large for a stream: \\d+ characters of JSON, at most ${MAX_MESSAGE}$`)) },
    })
  })

  it('requests/resume replays a kept 2 MB progress message and 2 MB result whole', async () => {
    const gate = deferred()
    const resumed = new McpServer({ name: 'resumed', version: '1.0.0' }).tool('later', {}, async (_args, ctx) => {
      ctx.progress(1, undefined, 'p'.repeat(2 * MB))
      await gate.promise
      return 'z'.repeat(2 * MB)
    })
    const url = await start(resumed, { extensions: [resumable({ store: memoryTaskStore(), maxRecordBytes: 5 * MB, maxWaitMs: 10_000 })], requestState: { secret: TEST_SECRET } })
    const capabilities = { resumableRequests: {} }
    // The client takes the policy and leaves; the call runs on.
    const leave = new AbortController()
    const res = await fetch(url, { method: 'POST', ...request(5, 'tools/call', { name: 'later', arguments: {} }, { progressToken: 'p' }, capabilities), signal: leave.signal })
    const policy = (await sseMessages(res.body!).next()).value as Message
    leave.abort()
    const resumeToken = policy.params.resumeToken as string
    gate.resolve()
    const status = async () => {
      const sent = request(6, 'requests/getStatus', { requestId: 5, resumeToken }, {}, capabilities)
      return ((await (await fetch(url, { method: 'POST', ...sent })).json()) as Message).result?.status
    }
    while ((await status()) !== 'completed') await new Promise((resolve) => setTimeout(resolve, 10))
    const messages = await post(url, request(5, 'requests/resume', { resumeToken }, {}, capabilities))
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'result'])
    expect(messages[0]!.params.message).toBe('p'.repeat(2 * MB))
    expect(text(messages[1])).toBe('z'.repeat(2 * MB))
  })

  it('still cuts a client that stops reading while messages queue after a large one', async () => {
    const ended = deferred<boolean>()
    const flood = new McpServer({ name: 'flood', version: '1.0.0' }).tool('flood', {}, async (_args, ctx) => {
      ctx.progress(1, undefined, 'x'.repeat(2 * MB))
      // 50 MB in all: past what loopback's socket buffers take, so the server's own backlog grows.
      for (let i = 2; i < 5000 && !ctx.signal.aborted; i++) {
        ctx.progress(i, undefined, 'y'.repeat(10_000))
        await new Promise((resolve) => setImmediate(resolve))
      }
      ended.resolve(ctx.signal.aborted)
      return 'done'
    })
    const { port } = new URL(await start(flood))
    // A raw socket that sends the request and then reads nothing.
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => {})
    closers.push(async () => void socket.destroy())
    const sent = request(1, 'tools/call', { name: 'flood', arguments: {} }, { progressToken: 'p' })
    const head = Object.entries({ ...sent.headers, host: `127.0.0.1:${port}`, 'content-length': String(Buffer.byteLength(sent.body)) }).map(([k, v]) => `${k}: ${v}`)
    socket.write(`POST /mcp HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n${sent.body}`)
    socket.pause()
    // Cut (the call aborted) before the tool had written all it would.
    expect(await ended.promise).toBe(true)
  })
})
