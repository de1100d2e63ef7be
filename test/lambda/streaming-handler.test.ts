/**
 * The streaming Lambda handler (createLambdaHandler) called in this process as the runtime calls it: a function
 * URL event, a real Writable as its response stream, a context with the remaining time. runtime-client.test.ts
 * runs the same handler under the real runtime client; this one reaches what only a child saw before.
 */
import { describe, expect, it, vi } from 'vitest'
import { createLambdaHandler, type LambdaContext } from '../../adapters/lambda/index.js'
import { McpServer, memoryBackplane } from '../../src/index.js'
import { Recorder } from '../helpers/recorder.js'
import { META_2026, modernHeaders } from '../helpers/server.js'

const context = (remainingMs = 10_000): LambdaContext => ({ getRemainingTimeInMillis: () => remainingMs })

/** A function URL event (payload 2.0) for one JSON-RPC request. */
function urlEvent(method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}) {
  return {
    version: '2.0', rawPath: '/mcp', rawQueryString: '',
    headers: { ...modernHeaders(method, params), host: 'abc.lambda-url.eu-west-1.on.aws' },
    requestContext: { domainName: 'abc.lambda-url.eu-west-1.on.aws', http: { method: 'POST', path: '/mcp', sourceIp: '203.0.113.9' } },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META_2026({}, meta) } }), isBase64Encoded: false,
  }
}

/** What went out: the prelude (JSON before the 8 NULs) and the body after it. */
function output(out: Recorder) {
  const all = out.calls.join('')
  const at = all.indexOf('\0'.repeat(8))
  return { prelude: JSON.parse(all.slice(0, at)) as { statusCode: number; headers: Record<string, string> }, body: all.slice(at + 8) }
}

/** Reports progress three times, 50 ms apart, then answers; `text` answers at once. */
const server = () => new McpServer({ name: 'streaming', version: '1.0.0' })
  .tool('report', {}, async (_args, ctx) => {
    for (const step of [1, 2, 3]) {
      ctx.progress(step, 3)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return 'Progress complete'
  })
  .tool('text', {}, () => 'plain')
const progress = urlEvent('tools/call', { name: 'report', arguments: {} }, { progressToken: 't' })

describe('streaming handler, in process', () => {
  it('streams progress then the result, topped up to 16 KiB after each pause so that Lambda passes it on', async () => {
    const out = new Recorder()
    const ctx = context()
    await createLambdaHandler(server())(progress, out, ctx)
    const { prelude, body } = output(out)
    expect(prelude).toMatchObject({ statusCode: 200, headers: { 'content-type': 'text/event-stream' } })
    expect(body.indexOf('notifications/progress')).toBeLessThan(body.indexOf('Progress complete'))
    // Three pauses of 50 ms between the reports: each burst padded to 16,384 bytes.
    expect(body.length).toBeGreaterThanOrEqual(2 * 16_384)
    expect(out.writableEnded).toBe(true)
    expect(ctx.callbackWaitsForEmptyEventLoop).toBe(false)
  })

  it('carries notify, for telling listen streams of a change from outside a request', async () => {
    const handler = createLambdaHandler(server())
    await expect(handler.notify.toolsChanged()).resolves.toBe(true)
  })

  it('pads nothing with flushBytes 0, nor a JSON answer', async () => {
    const bare = new Recorder()
    await createLambdaHandler(server(), { flushBytes: 0 })(progress, bare, context())
    expect(output(bare).body.length).toBeLessThan(2_000)
    const json = new Recorder()
    await createLambdaHandler(server())(urlEvent('tools/call', { name: 'text', arguments: {} }), json, context())
    const { prelude, body } = output(json)
    expect(prelude.headers['content-type']).toBe('application/json')
    expect(JSON.parse(body)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'plain' }] } })
  })

  it('a handler still running at the deadline: a 504 with a JSON-RPC error goes out, and the invocation ends', async () => {
    const stuck = new McpServer({ name: 'stuck', version: '1.0.0' }).tool('never', {}, () => new Promise<string>(() => {}))
    const out = new Recorder()
    await createLambdaHandler(stuck, { deadlineMarginMs: 200 })(urlEvent('tools/call', { name: 'never', arguments: {} }), out, context(300))
    const { prelude, body } = output(out)
    expect(prelude.statusCode).toBe(504)
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: 'The function ran out of time before the answer was ready' } })
    expect(out.writableEnded).toBe(true)
  })

  it('ends a listen stream after 60 s by default, with its result, however long the function may run', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    try {
      // A backplane every instance would share, as far as the handler can tell: not the in-memory kind.
      const shared = { ...memoryBackplane(), kind: 'shared' }
      const out = new Recorder()
      const listen = urlEvent('subscriptions/listen', { notifications: { toolsListChanged: true } })
      const ended = createLambdaHandler(server(), { backplane: shared })(listen, out, context(15 * 60_000)).then(() => 'ended')
      await vi.advanceTimersByTimeAsync(59_000)
      expect(out.calls.join('')).toContain('notifications/subscriptions/acknowledged')
      expect(out.writableEnded).toBe(false)
      await vi.advanceTimersByTimeAsync(1_100)
      expect(await ended).toBe('ended')
      expect(output(out).body).toContain('"resultType":"complete"')
    } finally {
      vi.useRealTimers()
    }
  })

  it('lets one client hold 10 listen streams at once by default, each an instance: the 11th is refused with 429', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    try {
      const handler = createLambdaHandler(server(), { backplane: { ...memoryBackplane(), kind: 'shared' } })
      const listen = () => urlEvent('subscriptions/listen', { notifications: { toolsListChanged: true } })
      const outs = Array.from({ length: 10 }, () => new Recorder())
      const open = outs.map((out) => handler(listen(), out, context(15 * 60_000)))
      await vi.advanceTimersByTimeAsync(100)
      expect(outs.every((out) => out.calls.join('').includes('notifications/subscriptions/acknowledged'))).toBe(true)
      const refused = new Recorder()
      await handler(listen(), refused, context(15 * 60_000))
      expect(output(refused).prelude.statusCode).toBe(429)
      expect(JSON.parse(output(refused).body)).toMatchObject({ error: { code: -32000 } })
      await vi.advanceTimersByTimeAsync(61_000)
      await Promise.all(open)
    } finally {
      vi.useRealTimers()
    }
  })

  it('refuses listen on the in-memory backplane, given or not: no other invocation\'s change could reach it', async () => {
    for (const options of [{}, { backplane: memoryBackplane() }]) {
      const out = new Recorder()
      await createLambdaHandler(server(), options)(urlEvent('subscriptions/listen', { notifications: { toolsListChanged: true } }), out, context())
      expect(JSON.parse(output(out).body)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('needs a shared backplane on Lambda') } })
    }
  })

  it('a stream still open at the deadline is ended there, with what it had written', async () => {
    const stuck = new McpServer({ name: 'stuck', version: '1.0.0' }).tool('hangs', {}, (_args, ctx) => {
      ctx.progress(1, 2)
      return new Promise<string>(() => {})
    })
    const out = new Recorder()
    const event = urlEvent('tools/call', { name: 'hangs', arguments: {} }, { progressToken: 't' })
    const ended = createLambdaHandler(stuck, { deadlineMarginMs: 200 })(event, out, context(300)).then(() => 'ended')
    expect(await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve('still running'), 2_000))])).toBe('ended')
    const { prelude, body } = output(out)
    expect(prelude.statusCode).toBe(200)
    expect(body).toContain('notifications/progress')
    expect(out.writableEnded).toBe(true)
  })

  it('a body that fails once the prelude is out is told to onError as a response error, and the invocation ends', async () => {
    // 1,200 reports of 1 KiB to a response stream that takes nothing: past the SSE body's backlog bound. Each
    // after an await: the bound weighs what waits from earlier runs, not one run's writes (src/http/sse.ts).
    const flood = new McpServer({ name: 'flood', version: '1.0.0' }).tool('flood', {}, async (_args, ctx) => {
      for (let i = 0; i < 1200; i++) {
        ctx.progress(i, 1200, 'x'.repeat(1024))
        await Promise.resolve()
      }
      return 'flooded'
    })
    const event = urlEvent('tools/call', { name: 'flood', arguments: {} }, { progressToken: 't' })
    const stalled = () => new Recorder(60_000, 1024)
    const errors: [unknown, string | undefined][] = []
    await createLambdaHandler(flood, { onError: (e, c) => void errors.push([e, c.during]) })(event, stalled(), context())
    expect(errors).toEqual([[new Error('client too slow'), 'response']])
    // An onError that throws fails nothing more: the response is out already.
    await createLambdaHandler(flood, { onError: () => { throw new Error('onError broke') } })(event, stalled(), context())
  })
})
