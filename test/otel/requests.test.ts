/**
 * Requests as OpenTelemetry spans and metrics, with the real SDK (in-memory exporters): the span's name,
 * parent and attributes as the MCP semantic conventions name them, the `_meta` trace context as parent and
 * the HTTP one as a link, the handler's own spans inside the request's, and the duration histogram.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createFetchHandler, McpServer, ToolError } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { Cancellation, createRuntime, exchange } from '../../src/core.js'
import { otelSdk, type OtelSdk } from '../helpers/otel.js'
import { META_2026, rpc } from '../helpers/server.js'
import { sseMessages } from '../helpers/wire.js'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`

const definition = () => new McpServer({ name: 'traced', version: '1.0.0' })
  .tool('echo', { description: 'Echoes', input: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String(args.text))
  .tool('refuses', { description: 'A tool error' }, () => {
    throw new ToolError('no such city')
  })
  .tool('nested', { description: 'Makes a span of its own' }, () => {
    trace.getTracer('user-code').startActiveSpan('lookup', (span) => span.end())
    return 'done'
  })
  .tool('slow', { description: 'Reports progress, then answers' }, async (_args, ctx) => {
    ctx.progress(0, 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    return 'late'
  })
  .tool('crashes', { description: 'An unexpected exception' }, () => {
    throw new Error('connection string leaked')
  })
  .tool('two_questions', { description: 'Asks twice, a round each' }, async (_args, ctx) => {
    const form = { type: 'object', properties: { ok: { type: 'boolean' } } } as const
    const first = await ctx.elicit('first', { message: 'First?', requestedSchema: form })
    const second = await ctx.elicit('second', { message: 'Second?', requestedSchema: form })
    return `${first.action} ${second.action}`
  })
  .prompt('greet', { description: 'Greets' }, () => 'hello')

let sdk: OtelSdk
const contextManager = new AsyncLocalStorageContextManager()
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()))
afterAll(() => {
  context.disable()
})
afterEach(() => sdk?.shutdown())

function handler(options: Parameters<typeof openTelemetry>[0] = {}) {
  sdk = otelSdk()
  return createFetchHandler(definition(), {
    telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...options }),
  })
}

const only = (name: string) => {
  const spans = sdk.spans().filter((s) => s.name === name)
  expect(spans).toHaveLength(1)
  return spans[0]!
}

describe('a request as a span', () => {
  it('is a SERVER span named after the method and tool, child of the _meta trace context, with the conventions\' attributes', async () => {
    const mcp = handler()
    const { body } = await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: { ...META_2026(), traceparent: TRACEPARENT, tracestate: 'vendor=abc' } }, { id: 42, url: 'http://localhost:8443/mcp' })
    expect(body.result.content[0].text).toBe('hi')
    const span = only('tools/call echo')
    expect(span.kind).toBe(SpanKind.SERVER)
    expect(span.spanContext().traceId).toBe(TRACE_ID)
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID)
    expect(span.parentSpanContext?.isRemote).toBe(true)
    expect(span.parentSpanContext?.traceState?.get('vendor')).toBe('abc')
    expect(span.links).toEqual([])
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '42',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': 'localhost',
      'server.port': 8443,
    })
    expect(span.status.code).toBe(SpanStatusCode.UNSET)
  })

  it('keeps tool arguments and results out unless the deployer opts in', async () => {
    const mcp = handler({ captureContent: true })
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'secret' }, _meta: META_2026() })
    const span = only('tools/call echo')
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"secret"}')
    expect(JSON.parse(String(span.attributes['gen_ai.tool.call.result']))).toMatchObject({ content: [{ type: 'text', text: 'secret' }] })
  })

  it('marks a tool error as error.type tool_error, and a JSON-RPC error with its code', async () => {
    const mcp = handler()
    await rpc(mcp, 'tools/call', { name: 'refuses', arguments: {}, _meta: META_2026() })
    const refused = only('tools/call refuses')
    expect(refused.attributes['error.type']).toBe('tool_error')
    expect(refused.attributes['rpc.response.status_code']).toBeUndefined()
    expect(refused.status.code).toBe(SpanStatusCode.ERROR)

    const { body } = await rpc(mcp, 'tools/call', { name: 'nope', arguments: {}, _meta: META_2026() })
    expect(body.error.code).toBe(-32602)
    // A tool the server does not have is named _OTHER: made-up names would each make a metric series.
    const unknown = only('tools/call _OTHER')
    expect(unknown.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'gen_ai.tool.name': '_OTHER' })
    expect(unknown.status).toEqual({ code: SpanStatusCode.ERROR, message: body.error.message })

    await rpc(mcp, 'resources/subscribe', { uri: 'file:///x', _meta: META_2026() })
    expect(only('resources/subscribe').attributes).toMatchObject({ 'error.type': '-32601', 'mcp.resource.uri': 'file:///x' })
  })

  it('names a prompt; a request without trace context starts a trace of its own', async () => {
    const mcp = handler()
    await rpc(mcp, 'prompts/get', { name: 'greet', _meta: META_2026() }, { url: 'https://localhost/mcp' })
    const span = only('prompts/get greet')
    expect(span.attributes).toMatchObject({ 'gen_ai.prompt.name': 'greet', 'mcp.method.name': 'prompts/get', 'server.port': 443 })
    expect(span.attributes['gen_ai.operation.name']).toBeUndefined()
    expect(span.parentSpanContext).toBeUndefined()
  })

  it('links the HTTP request\'s own trace context when _meta names another; without _meta, the HTTP one is the parent', async () => {
    const mcp = handler()
    const httpParent = '00-11111111111111111111111111111111-2222222222222222-01'
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: TRACEPARENT } }, { headers: { ...headers, traceparent: httpParent } })
    const linked = only('tools/call echo')
    expect(linked.spanContext().traceId).toBe(TRACE_ID)
    expect(linked.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([['11111111111111111111111111111111', '2222222222222222']])

    sdk.spans().length = 0
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: META_2026() }, { headers: { ...headers, traceparent: httpParent } })
    const child = only('tools/call echo')
    expect(child.spanContext().traceId).toBe('11111111111111111111111111111111')
    expect(child.parentSpanContext?.spanId).toBe('2222222222222222')
    expect(child.links).toEqual([])
  })

  it('names a version no protocol has _OTHER, one this server does not serve by its name, and the one spoken when the request named none', async () => {
    const mcp = handler()
    const { body } = await rpc(mcp, 'tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/list' },
    })
    expect(body.error).toBeDefined()
    expect(only('tools/list').attributes['mcp.protocol.version']).toBe('_OTHER')

    sdk.spans().length = 0
    const seedOnly = createFetchHandler(new McpServer({ name: 'new', version: '1', versions: ['2026-07-28'] }), {
      telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    })
    await rpc(seedOnly, 'tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1' } }, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/list' },
    })
    expect(only('tools/list').attributes['mcp.protocol.version']).toBe('DRAFT-2026-v1')

    sdk.spans().length = 0
    // A 2025 client without MCP-Protocol-Version is spoken to in 2025-03-26, as the 2025 transport says.
    await rpc(mcp, 'tools/list', {}, { headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } })
    expect(only('tools/list').attributes['mcp.protocol.version']).toBe('2025-03-26')
  })

  it('flushes the registered SDK where the platform gives waitUntil', async () => {
    sdk = otelSdk()
    trace.setGlobalTracerProvider(sdk.tracerProvider)
    let flushed = 0
    const flush = sdk.tracerProvider.forceFlush.bind(sdk.tracerProvider)
    sdk.tracerProvider.forceFlush = () => {
      flushed++
      return flush()
    }
    try {
      const mcp = createFetchHandler(definition(), { telemetry: openTelemetry() })
      const pending: Promise<unknown>[] = []
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'w' }, _meta: META_2026() } }
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
      await (await mcp(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(message) }), { waitUntil: (p) => void pending.push(p) })).json()
      await Promise.all(pending)
      expect(flushed).toBe(1)
      await (await mcp(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(message) }))).json()
      expect(flushed).toBe(1)
      expect(sdk.spans()).toHaveLength(2)
    } finally {
      trace.disable()
    }
  })

  it('links neither the HTTP trace context that _meta repeats nor an HTTP span that is the parent already', async () => {
    const mcp = handler()
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: TRACEPARENT } }, { headers: { ...headers, traceparent: TRACEPARENT } })
    expect(only('tools/call echo').links).toEqual([])
    // Differing in the span alone (a proxy's span in the client's trace), or in the trace alone, it is linked.
    for (const [traceId, spanId] of [[TRACE_ID, '3333333333333333'], ['11111111111111111111111111111111', PARENT_ID]]) {
      sdk.spans().length = 0
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: TRACEPARENT } }, { headers: { ...headers, traceparent: `00-${traceId}-${spanId}-01` } })
      expect(only('tools/call echo').links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[traceId, spanId]])
    }
  })

  it('takes a span HTTP instrumentation made as the HTTP request\'s context, rather than reading its headers again', async () => {
    const mcp = handler()
    const http = sdk.tracerProvider.getTracer('http').startSpan('POST /mcp')
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
    await context.with(trace.setSpan(context.active(), http), () => rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: META_2026() }, {
      headers: { ...headers, traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
    }))
    http.end()
    const span = only('tools/call echo')
    expect(span.parentSpanContext?.spanId).toBe(http.spanContext().spanId)
    expect(span.spanContext().traceId).toBe(http.spanContext().traceId)
  })

  it('honours the sampled flag of the client\'s trace context: a trace it does not sample records no span', async () => {
    const mcp = handler()
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` } })
    expect(sdk.spans()).toEqual([])
    // Flag bits besides "sampled" are left alone.
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: `00-${TRACE_ID}-${PARENT_ID}-03` } })
    expect(only('tools/call echo').parentSpanContext?.traceFlags).toBe(1)
  })

  it('lets the deployment\'s propagator read _meta first, and reads W3C trace context only where it found nothing', async () => {
    // A propagator of another format, which reads a `x-trace` member as "traceId:spanId".
    propagation.setGlobalPropagator({
      inject: () => {},
      fields: () => ['x-trace'],
      extract: (ctx, carrier, getter) => {
        // As a getter promises: a string, an array of them, or undefined.
        const value = getter.get(carrier, 'x-trace')
        if (value === undefined) return ctx
        const [traceId, spanId] = String(value).split(':')
        return trace.setSpanContext(ctx, { traceId: traceId!, spanId: spanId!, traceFlags: 1, isRemote: true })
      },
    })
    try {
      const mcp = handler()
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: TRACEPARENT, 'x-trace': '33333333333333333333333333333333:4444444444444444' } })
      expect(only('tools/call echo').parentSpanContext?.spanId).toBe('4444444444444444')
      sdk.spans().length = 0
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), 'x-trace': '33333333333333333333333333333333:5555555555555555' } })
      expect(only('tools/call echo').parentSpanContext?.spanId).toBe('5555555555555555')
      sdk.spans().length = 0
      // A member that is not a string is not handed to the propagator.
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: TRACEPARENT, 'x-trace': { traceId: 1 } } })
      expect(only('tools/call echo').parentSpanContext?.spanId).toBe(PARENT_ID)
    } finally {
      propagation.disable()
    }
  })

  it('ignores a malformed traceparent in _meta, and then takes the HTTP one as parent', async () => {
    const mcp = handler()
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: { ...META_2026(), traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` } }, {
      headers: { ...headers, traceparent: '00-11111111111111111111111111111111-2222222222222222-01' },
    })
    expect(only('tools/call echo').parentSpanContext?.spanId).toBe('2222222222222222')
  })

  it('says which round of a multi-round-trip request each request is', async () => {
    const mcp = handler()
    const ask = (extra: Record<string, unknown>, id: number) => rpc(mcp, 'tools/call', { name: 'two_questions', arguments: {}, ...extra, _meta: META_2026({ elicitation: {} }) }, { id })
    const one = await ask({}, 1)
    expect(one.body.result.resultType).toBe('input_required')
    const two = await ask({ requestState: one.body.result.requestState, inputResponses: { first: { action: 'accept', content: { ok: true } } } }, 2)
    expect(two.body.result.resultType).toBe('input_required')
    const three = await ask({ requestState: two.body.result.requestState, inputResponses: { second: { action: 'decline' } } }, 3)
    expect(three.body.result.content[0].text).toBe('accept decline')
    expect(sdk.spans().map((s) => [s.attributes['jsonrpc.request.id'], s.attributes['mcp.request.round']])).toEqual([['1', 1], ['2', 2], ['3', 3]])
  })

  it('ignores a malformed traceparent in _meta', async () => {
    const mcp = handler()
    const malformed = [
      `ff-${TRACE_ID}-${PARENT_ID}-01`, `00-${'0'.repeat(32)}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID}-01-extra`, 'garbage',
      // Each field's length, its hex digits (lower case only), and nothing before or after.
      `0-${TRACE_ID}-${PARENT_ID}-01`, `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`, `00-${TRACE_ID}-${PARENT_ID}-1`,
      `0g-${TRACE_ID}-${PARENT_ID}-01`, `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID.replace('f', 'x')}-01`, `00-${TRACE_ID}-${PARENT_ID}-0z`,
      `x00-${TRACE_ID}-${PARENT_ID}-01`, `00-${TRACE_ID}-${PARENT_ID}-01x`,
    ]
    for (const traceparent of malformed) {
      sdk.spans().length = 0
      const { body } = await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: { ...META_2026(), traceparent } })
      expect(body.result.content[0].text).toBe('x')
      expect(only('tools/call echo').parentSpanContext).toBeUndefined()
    }
  })

  it('takes a traceparent of a later version with fields of its own, and one with blanks around it', async () => {
    const mcp = handler()
    for (const traceparent of [`cc-${TRACE_ID}-${PARENT_ID}-01-what-comes-later`, ` ${TRACEPARENT} `]) {
      sdk.spans().length = 0
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: { ...META_2026(), traceparent } })
      expect(only('tools/call echo').parentSpanContext?.spanId).toBe(PARENT_ID)
    }
  })

  it('takes tracestate and baggage through the registered propagator', async () => {
    const { W3CTraceContextPropagator, W3CBaggagePropagator, CompositePropagator } = await import('@opentelemetry/core')
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }))
    try {
      const seen: (string | undefined)[] = []
      sdk = otelSdk()
      const mcp = createFetchHandler(new McpServer({ name: 'b', version: '1.0.0' }).tool('who', { description: 'Reads baggage' }, () => {
        seen.push(propagation.getBaggage(context.active())?.getEntry('tenant')?.value)
        return 'ok'
      }), { telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) })
      await rpc(mcp, 'tools/call', { name: 'who', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT, tracestate: 'vendor=abc', baggage: 'tenant=acme' } })
      const span = only('tools/call who')
      expect(span.parentSpanContext?.traceState?.get('vendor')).toBe('abc')
      expect(seen).toEqual(['acme'])
      // A member of the wrong type is no trace context.
      sdk.spans().length = 0
      await rpc(mcp, 'tools/call', { name: 'who', arguments: {}, _meta: { ...META_2026(), traceparent: 42 } })
      expect(only('tools/call who').parentSpanContext).toBeUndefined()
    } finally {
      propagation.disable()
    }
  })

  it('is the parent of the spans the handler makes', async () => {
    const mcp = handler()
    trace.setGlobalTracerProvider(sdk.tracerProvider)
    try {
      await rpc(mcp, 'tools/call', { name: 'nested', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT } })
    } finally {
      trace.disable()
    }
    const request = only('tools/call nested')
    const lookup = only('lookup')
    expect(lookup.spanContext().traceId).toBe(TRACE_ID)
    expect(lookup.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
  })

  it('covers an SSE answer until its stream ends', async () => {
    const mcp = handler()
    const res = await mcp(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'slow' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: META_2026({}, { progressToken: 'p' }) } }),
    }))
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const messages = sseMessages(res.body!)
    expect((await messages.next()).value).toMatchObject({ method: 'notifications/progress' })
    expect(sdk.spans()).toEqual([])
    for await (const message of messages) expect(message).toMatchObject({ id: 1, result: { content: [{ text: 'late' }] } })
    const span = only('tools/call slow')
    const [s, ns] = span.duration
    expect(s * 1000 + ns / 1e6).toBeGreaterThanOrEqual(40)
  })
})

describe('attributes at the edges', () => {
  it('names no target for a method other than tools/call and prompts/get, whatever its params hold', async () => {
    const mcp = handler()
    await rpc(mcp, 'resources/list', { name: 'stray', _meta: META_2026() })
    const span = only('resources/list')
    expect(Object.keys(span.attributes).filter((k) => k.startsWith('gen_ai.'))).toEqual([])
  })

  it('gives the default port of the scheme where the URL names none, and the tracer is mcp-edge\'s', async () => {
    sdk = otelSdk()
    const mcp = createFetchHandler(definition(), { allowedHosts: ['mcp.example.com'], telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) })
    for (const url of ['https://mcp.example.com/mcp', 'http://mcp.example.com/mcp']) await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: META_2026() }, { url })
    expect(sdk.spans().map((s) => [s.attributes['server.address'], s.attributes['server.port']])).toEqual([['mcp.example.com', 443], ['mcp.example.com', 80]])
    expect(sdk.spans()[0]!.instrumentationScope.name).toBe('mcp-edge')
  })

  it('over a transport without HTTP (stdio): network.transport pipe, and neither network.protocol.name nor a server address', async () => {
    sdk = otelSdk()
    const runtime = createRuntime(definition(), { telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) })
    const message = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: META_2026() } }
    await exchange(runtime, message, { versionHeader: null, cancel: new Cancellation(), emit: () => {} })
    const span = only('tools/call echo')
    expect(span.attributes['network.transport']).toBe('pipe')
    expect(Object.keys(span.attributes).filter((k) => k.startsWith('server.') || k === 'network.protocol.name')).toEqual([])
  })

  it('captures a result only of a tools/call that answered one', async () => {
    const mcp = handler({ captureContent: true })
    await rpc(mcp, 'tools/call', { name: 'nowhere', arguments: {}, _meta: META_2026() })
    await rpc(mcp, 'prompts/get', { name: 'greet', _meta: META_2026() })
    expect(only('tools/call _OTHER').attributes).toMatchObject({ 'error.type': '-32602', 'gen_ai.tool.call.arguments': '{}' })
    expect(only('tools/call _OTHER').attributes['gen_ai.tool.call.result']).toBeUndefined()
    expect(only('prompts/get greet').attributes['gen_ai.tool.call.result']).toBeUndefined()
  })

  it('counts only listen requests among the open listen streams', async () => {
    const mcp = handler()
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: META_2026() })
    expect(await sdk.sums('mcp.server.listen.streams')).toEqual([])
  })
})

describe('the duration metric', () => {
  it('records mcp.server.operation.duration in seconds by method, tool and error, without ids or addresses', async () => {
    const mcp = handler()
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'a' }, _meta: META_2026() })
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'b' }, _meta: META_2026() }, { id: 2 })
    await rpc(mcp, 'tools/call', { name: 'refuses', arguments: {}, _meta: META_2026() })
    const points = await sdk.histogram('mcp.server.operation.duration')
    const echo = points.find((p) => p.attributes['gen_ai.tool.name'] === 'echo')!
    expect(echo.attributes).toEqual({
      'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo',
      'mcp.protocol.version': '2026-07-28', 'network.transport': 'tcp', 'network.protocol.name': 'http',
    })
    expect(echo.value.count).toBe(2)
    expect(echo.value.sum).toBeGreaterThan(0)
    expect(echo.value.sum).toBeLessThan(5)
    expect(echo.value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'refuses')?.attributes['error.type']).toBe('tool_error')
  })
})

describe('the default error log', () => {
  it('writes one JSON line per error, with the error id the client got, the method, tool and request, and the trace and span ids', async () => {
    const mcp = handler()
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const { body } = await rpc(mcp, 'tools/call', { name: 'crashes', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT } }, { id: 'r-9' })
      const errorId = /error id ([0-9a-f]{8})/.exec(body.result.content[0].text)![1]
      expect(spy).toHaveBeenCalledTimes(1)
      const line = spy.mock.calls[0]![0] as string
      expect(line).not.toContain('\n')
      expect(JSON.parse(line)).toEqual({
        level: 'error', logger: 'mcp-edge', errorId, method: 'tools/call', tool: 'crashes', requestId: 'r-9',
        traceId: TRACE_ID, spanId: only('tools/call crashes').spanContext().spanId,
        error: { type: 'Error', message: 'connection string leaked', stack: expect.stringContaining('connection string leaked') },
      })
    } finally {
      spy.mockRestore()
    }
  })

  it('says what was thrown when it was not an Error, and leaves the trace out where none is recorded', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const mcp = createFetchHandler(new McpServer({ name: 'p', version: '1.0.0' }).tool('odd', { description: 'Throws a string' }, () => {
        throw 'plain string' // eslint-disable-line no-throw-literal
      }), { telemetry: openTelemetry() })
      // No SDK registered: the API's no-op span has no valid ids to log.
      await rpc(mcp, 'tools/call', { name: 'odd', arguments: {}, _meta: META_2026() })
      expect(JSON.parse(spy.mock.calls[0]![0] as string)).toEqual({
        level: 'error', logger: 'mcp-edge', errorId: expect.any(String), method: 'tools/call', tool: 'odd', requestId: 1,
        error: { type: 'string', message: 'plain string' },
      })
    } finally {
      spy.mockRestore()
    }
  })
})

describe('telemetry that fails', () => {
  it('is reported, and the request is answered as if nothing watched it', async () => {
    const errors: unknown[] = []
    const mcp = createFetchHandler(definition(), {
      onError: (e, c) => errors.push([(e as Error).message, c.during]),
      telemetry: { request: () => ({ run: (fn) => fn(), end: () => { throw new Error('exporter down') } }) },
    })
    const { body } = await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'still' }, _meta: META_2026() })
    expect(body.result.content[0].text).toBe('still')
    const refused = createFetchHandler(definition(), {
      onError: (e, c) => errors.push([(e as Error).message, c.during]),
      telemetry: { request: () => { throw new Error('tracer broken') } },
    })
    expect((await rpc(refused, 'tools/call', { name: 'echo', arguments: { text: 'too' }, _meta: META_2026() })).body.result.content[0].text).toBe('too')
    // A body refused before the exchange: counted by telemetry that throws, still answered 413.
    const small = createFetchHandler(definition(), {
      maxBodyBytes: 16,
      onError: (e, c) => errors.push([(e as Error).message, c.during]),
      telemetry: { request: () => undefined, count: () => { throw new Error('meter broken') } },
    })
    expect((await rpc(small, 'tools/list', { _meta: META_2026() })).status).toBe(413)
    expect(errors).toEqual([['exporter down', 'telemetry'], ['tracer broken', 'telemetry'], ['meter broken', 'telemetry']])
  })

  it('with metrics and no tracer, still measures every request', async () => {
    sdk = otelSdk()
    const mcp = createFetchHandler(definition(), { telemetry: openTelemetry({ meterProvider: sdk.meterProvider }) })
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'm' }, _meta: META_2026() })
    expect((await sdk.histogram('mcp.server.operation.duration')).map((p) => p.value.count)).toEqual([1])
    expect(sdk.spans()).toEqual([])
  })

  it('without a provider registered, keeps nothing of the request: the handler runs in no span at all', async () => {
    const seen: unknown[] = []
    const mcp = createFetchHandler(new McpServer({ name: 'bare', version: '1.0.0' }).tool('look', { description: 'Looks for a span' }, () => {
      seen.push(trace.getActiveSpan())
      return 'looked'
    }), { telemetry: openTelemetry() })
    await rpc(mcp, 'tools/call', { name: 'look', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT } })
    expect(seen).toEqual([undefined])
  })

  it('sees an SDK registered after the server started, within a second', async () => {
    const mcp = createFetchHandler(definition(), { telemetry: openTelemetry() })
    await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'before' }, _meta: META_2026() })
    sdk = otelSdk()
    trace.setGlobalTracerProvider(sdk.tracerProvider)
    try {
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'after' }, _meta: META_2026() })
      expect(sdk.spans().map((s) => s.name)).toEqual(['tools/call echo'])
    } finally {
      trace.disable()
    }
  })

  it('without a provider registered, the global no-ops answer as before', async () => {
    const mcp = createFetchHandler(definition(), { telemetry: openTelemetry() })
    const { body } = await rpc(mcp, 'tools/call', { name: 'echo', arguments: { text: 'plain' }, _meta: { ...META_2026(), traceparent: TRACEPARENT } })
    expect(body.result.content[0].text).toBe('plain')
  })
})
