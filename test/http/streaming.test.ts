/** JSON or SSE by what the handler does; keep-alives; cancellation reaching the handler. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFetchHandler as createHandler, McpServer, type HandlerOptions } from '../../src/index.js'
import { serve } from '../../adapters/node/index.js'
import { deferred } from '../helpers/async.js'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { recordingFetch, sseMessages } from '../helpers/wire.js'

let wire: ReturnType<typeof recordingFetch> | undefined
afterEach(async () => {
  await wire?.settled()
  expect(wire?.violations ?? []).toEqual([])
})

/** The fetch handler, with every message it sends checked against the schema. */
function createFetchHandler(server: McpServer, options?: HandlerOptions) {
  wire = recordingFetch(createHandler(server, options))
  return (request: Request) => wire!.fetch(request)
}

function probeServer() {
  const seen = { aborted: false, after: 0 }
  /** Resolved by the slow tool once it has returned; the gate lets the idle tool return. */
  const finished = deferred()
  const gate = deferred()
  const server = new McpServer({ name: 'probe', version: '1.0.0' })
    .tool('quiet', { description: 'answers at once' }, () => 'done')
    .tool('slow', { description: 'reports progress, then waits to be cancelled' }, async (_args, ctx) => {
      ctx.progress(1, 10)
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }))
      seen.aborted = true
      ctx.progress(2, 10) // after the abort: must go nowhere
      seen.after++
      setTimeout(() => finished.resolve())
      return 'finished anyway'
    })
    .tool('idle', { description: 'reports progress, then idles until the test opens the gate' }, async (_args, ctx) => {
      ctx.progress(1)
      await gate.promise
      return 'woke'
    })
  return { server, seen, finished, gate }
}

const request = (name: string, token?: string) =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: modernHeaders('tools/call', { name }),
    body: JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name, arguments: {}, _meta: META_2026({}, token === undefined ? {} : { progressToken: token }) },
    }),
  })

describe('response mode', () => {
  it('answers with one JSON object when nothing comes before the result', async () => {
    const handler = createFetchHandler(probeServer().server)
    const res = await handler(request('quiet', 'p'))
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'done' }] } })
  })

  it('upgrades to SSE when a notification comes first, with anti-buffering headers', async () => {
    const { server, gate } = probeServer()
    const handler = createFetchHandler(server)
    const res = await handler(request('idle', 'p'))
    gate.resolve()
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    expect(res.headers.get('cache-control')).toContain('no-cache')
    const messages = []
    for await (const m of sseMessages(res.body!)) messages.push(m)
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } },
      expect.objectContaining({ id: 1, result: expect.objectContaining({ content: [{ type: 'text', text: 'woke' }] }) }),
    ])
  })

  it('without a progressToken, progress is not sent and the answer stays JSON', async () => {
    const { server, gate } = probeServer()
    gate.resolve()
    const res = await createFetchHandler(server)(request('idle'))
    expect(res.headers.get('content-type')).toBe('application/json')
  })

  it('sends keep-alive comments while the handler is quiet', async () => {
    const { server, gate } = probeServer()
    const res = await createFetchHandler(server, { keepAliveMs: 10 })(request('idle', 'p'))
    const reader = res.body!.getReader()
    let text = ''
    while ((text.match(/^: keep-alive$/gm)?.length ?? 0) < 3) text += new TextDecoder().decode((await reader.read()).value)
    gate.resolve()
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value)
    expect(text).toContain('"text":"woke"')
  })

  it('a notification sent after the answer opens no stream and leaves no keep-alive timer behind', async () => {
    vi.useFakeTimers()
    try {
      let kept: { progress(n: number): void } | undefined
      const server = new McpServer({ name: 'late', version: '1.0.0' }).tool('late', { description: 'keeps its context' }, (_args, ctx) => {
        kept = ctx
        return 'answered'
      })
      const res = await createHandler(server, { keepAliveMs: 1000 })(request('late', 'p'))
      expect(res.headers.get('content-type')).toBe('application/json')
      kept!.progress(1)
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('progress after the client aborted the request, before any stream, opens none: the answer stays JSON', async () => {
    const server = new McpServer({ name: 'gone', version: '1.0.0' }).tool('wait', { description: 'waits' }, async (_args, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      ctx.progress(1)
      return 'after the abort'
    })
    const client = new AbortController()
    const answer = createHandler(server)(new Request(request('wait', 'p'), { signal: client.signal }))
    await new Promise((r) => setTimeout(r, 10))
    client.abort()
    const res = await answer
    expect(res.headers.get('content-type')).toBe('application/json')
  })

  it('a handler learns why it was aborted: the client closed the stream', async () => {
    const reason = deferred<unknown>()
    const server = new McpServer({ name: 'r', version: '1.0.0' }).tool('wait', { description: 'waits' }, async (_args, ctx) => {
      ctx.progress(1)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      reason.resolve(ctx.signal.reason)
      return 'aborted'
    })
    const res = await createHandler(server)(request('wait', 'p'))
    const reader = res.body!.getReader()
    await reader.read()
    await reader.cancel()
    expect(await reason.promise).toEqual(new Error('client closed the stream'))
  })

  it('cancelling the SSE body aborts the handler, and nothing is written after', async () => {
    const probe = probeServer()
    const res = await createFetchHandler(probe.server)(request('slow', 'p'))
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain('notifications/progress')
    await reader.cancel()
    await probe.finished.promise
    expect(probe.seen).toEqual({ aborted: true, after: 1 })
  })

  it('a client that disconnects over real HTTP aborts the handler', async () => {
    const { server, seen, finished } = probeServer()
    const running = await serve(server, { port: 0, handleSignals: false })
    try {
      const abort = new AbortController()
      const res = await fetch(running.url, {
        method: 'POST', headers: modernHeaders('tools/call', { name: 'slow' }), signal: abort.signal,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: META_2026({}, { progressToken: 1 }) } }),
      })
      await res.body!.getReader().read()
      abort.abort()
      await finished.promise
      expect(seen).toEqual({ aborted: true, after: 1 })
    } finally {
      await running.close()
    }
  })

  it('notifications are accepted with 202 and no body', async () => {
    const handler = createFetchHandler(probeServer().server)
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: META_2026() } }),
    }))
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
  })
})

describe('log notifications', () => {
  const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
  const server = new McpServer({ name: 'logs', version: '1.0.0' })
    .tool('log_all', { description: 'logs once at every level' }, (_args, ctx) => {
      for (const level of LEVELS) ctx.log(level, `at ${level}`, 'probe')
      return 'logged'
    })

  it.each(LEVELS)('a request asking for %s gets that level and every one above it', async (threshold) => {
    const params = { name: 'log_all', arguments: {}, _meta: META_2026({}, { 'io.modelcontextprotocol/logLevel': threshold }) }
    const res = await createFetchHandler(server)(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    }))
    const logs = []
    for await (const m of sseMessages(res.body!)) if (m.method === 'notifications/message') logs.push(m.params)
    expect(logs).toEqual(LEVELS.slice(LEVELS.indexOf(threshold)).map((level) => ({ level, data: `at ${level}`, logger: 'probe' })))
  })
})


describe('the request context', () => {
  it('tells a handler who asks, in which version, with which _meta, over which request', async () => {
    const server = new McpServer({ name: 'ctx', version: '1.0.0' })
      .tool('whoami', { description: 'describes its context' }, (_args, ctx) => ({
        requestId: ctx.requestId, method: ctx.method, protocolVersion: ctx.protocolVersion,
        client: ctx.client as unknown as Record<string, unknown>, trace: ctx.meta['example.com/trace'] ?? null,
        url: ctx.request?.url ?? null, env: (ctx.env as { region?: string } | undefined)?.region ?? null,
        aborted: ctx.signal.aborted,
      }))
    const handler = createHandler(server)
    const params = { name: 'whoami', arguments: {}, _meta: META_2026({ roots: {} }, { 'example.com/trace': 't-1' }) }
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'req-9', method: 'tools/call', params }),
    }), { env: { region: 'eu' } })
    expect((await res.json()).result.structuredContent).toEqual({
      requestId: 'req-9', method: 'tools/call', protocolVersion: '2026-07-28',
      client: { info: { name: 'mcp-edge-tests', version: '1.0.0' }, capabilities: { roots: {} } },
      trace: 't-1', url: 'http://127.0.0.1/mcp', env: 'eu', aborted: false,
    })
  })

  it('sends progress only when it advances, with total and message when given', async () => {
    const server = new McpServer({ name: 'progress', version: '1.0.0' })
      .tool('jumpy', { description: 'reports progress out of order' }, (_args, ctx) => {
        ctx.progress(1)
        ctx.progress(1, 10)
        ctx.progress(0.5, 10)
        ctx.progress(3, 10, 'three')
        return 'done'
      })
    const handler = createFetchHandler(server)
    const res = await handler(request('jumpy', 'tok'))
    const sent = []
    for await (const m of sseMessages(res.body!)) if (m.method === 'notifications/progress') sent.push(m.params)
    expect(sent).toEqual([{ progressToken: 'tok', progress: 1 }, { progressToken: 'tok', progress: 3, total: 10, message: 'three' }])
  })
})
