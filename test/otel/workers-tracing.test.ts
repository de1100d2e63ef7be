/**
 * Workers' built-in tracing (workersTracing(), adapters/cloudflare/tracing.ts) in workerd: a Worker bundled
 * from the sources runs in Miniflare with a streaming tail worker, which posts every trace event back to
 * this process, where they are folded into spans. What is asserted is what Cloudflare would export: span
 * names, nesting, attributes and statuses.
 */
import { join } from 'node:path'
import { build } from 'esbuild'
import { convertV4MiniflareOptions, Miniflare, Response as MiniflareResponse } from 'miniflare'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { META, sseReader } from '../workers/sse.js'

const ROOT = join(import.meta.dirname, '../..')
const FIXTURES = join(ROOT, 'test/fixtures/workers-tracing')

interface TraceEvent {
  invocationId: string
  sequence: number
  spanContext: { traceId: string; spanId?: string }
  event: { type: string; spanId?: string; name?: string; info?: unknown; outcome?: string; level?: string; message?: unknown[] }
}
interface TracedSpan {
  name: string
  spanId: string
  parentSpanId: string | undefined
  traceId: string
  attributes: Record<string, unknown>
  status: { code: string; message?: string } | undefined
  closed: string | undefined
}

const events: TraceEvent[] = []
let mf: Miniflare

/** The events as spans: an onset or spanOpen opens one under the span its event names; the rest fill it in. */
function spans(): TracedSpan[] {
  const found = new Map<string, TracedSpan>()
  const sorted = [...events].sort((a, b) => a.invocationId.localeCompare(b.invocationId) || a.sequence - b.sequence)
  for (const { spanContext, event } of sorted) {
    if (event.type === 'onset' || event.type === 'spanOpen') {
      found.set(event.spanId!, {
        name: event.type === 'onset' ? 'invocation' : event.name!, spanId: event.spanId!, parentSpanId: spanContext.spanId,
        traceId: spanContext.traceId, attributes: {}, status: undefined, closed: undefined,
      })
      continue
    }
    const span = found.get(spanContext.spanId!)
    if (!span) continue
    if (event.type === 'attributes') for (const { name, value } of event.info as { name: string; value: unknown }[]) span.attributes[name] = value
    else if (event.type === 'spanUpdate' && (event.info as { type: string }).type === 'status') span.status = (event.info as { status: TracedSpan['status'] }).status
    else if (event.type === 'spanClose' || event.type === 'outcome') span.closed = event.outcome
  }
  return [...found.values()]
}

/** The span named `name`, once its invocation has ended and its events are all in. */
async function span(name: string): Promise<TracedSpan> {
  await until(() => spans().some((s) => s.name === name && s.closed !== undefined), 5000, `the span ${name}`)
  return spans().find((s) => s.name === name)!
}

async function post(method: string, params: Record<string, unknown>, id: number, meta: Record<string, unknown> = META) {
  return mf.dispatchFetch('https://mcp.example.com/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
      'mcp-method': method, ...(method === 'tools/call' ? { 'mcp-name': String(params.name) } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
  })
}

/** What the Worker logged with console.log (not its warnings), as the tail saw it. */
const logs = () => events.filter((e) => e.event.type === 'log' && e.event.level === 'log').flatMap((e) => e.event.message!.map(String))

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(FIXTURES, 'worker.ts')], bundle: true, format: 'esm', write: false, platform: 'neutral', logLevel: 'silent',
    conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], external: ['cloudflare:*', 'node:*'],
    alias: { 'mcp-edge/cloudflare': './adapters/cloudflare/index.ts', 'mcp-edge': './src/index.ts' }, absWorkingDir: ROOT,
  })
  mf = new Miniflare(convertV4MiniflareOptions({
    workers: [
      {
        name: 'traced', modules: [{ type: 'ESModule', path: 'worker.mjs', contents: bundle.outputFiles[0]!.text }],
        compatibilityDate: '2026-11-02', compatibilityFlags: ['enable_request_signal'], streamingTails: ['tail'],
        bindings: { MCP_REQUEST_STATE_SECRET: 'workers-tracing-test-secret-0123456789abcdef' },
      },
      {
        name: 'tail', modules: true, scriptPath: join(FIXTURES, 'tail.js'), compatibilityDate: '2026-11-02',
        serviceBindings: {
          SINK: async (request: { json(): Promise<unknown> }) => {
            events.push(...(await request.json()) as TraceEvent[])
            return new MiniflareResponse(null, { status: 204 })
          },
        },
      },
    ],
  }))
  await mf.ready
}, 60_000)
afterAll(() => mf?.dispose())
beforeEach(() => void (events.length = 0))

describe('workersTracing()', () => {
  it('makes a tools/call a span of the invocation, named and attributed as OpenTelemetry\'s MCP conventions say', async () => {
    const body = await (await post('tools/call', { name: 'echo', arguments: { text: 'hi' } }, 7)).json() as { result: unknown }
    expect(body).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } })
    const call = await span('tools/call echo')
    const invocation = spans().find((s) => s.name === 'invocation')!
    expect(call).toMatchObject({ parentSpanId: invocation.spanId, traceId: invocation.traceId, closed: 'ok', status: undefined })
    expect(call.attributes).toEqual({
      'mcp.method.name': 'tools/call', 'jsonrpc.request.id': '7', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.arguments': '{"text":"hi"}', 'gen_ai.tool.call.result': JSON.stringify(body.result),
      'mcp.protocol.version': '2026-07-28', 'network.transport': 'tcp', 'network.protocol.name': 'http',
      'server.address': 'mcp.example.com', 'server.port': 443,
    })
  })

  it('runs the handler inside the request\'s span: a span it makes is a child', async () => {
    await (await post('tools/call', { name: 'nested', arguments: {} }, 8)).text()
    const call = await span('tools/call nested')
    expect(await span('lookup')).toMatchObject({ parentSpanId: call.spanId, attributes: { 'lookup.key': 'k' } })
  })

  it('marks a tool\'s error result tool_error, and a refused request with its JSON-RPC code and message', async () => {
    await (await post('tools/call', { name: 'refuse', arguments: {} }, 9)).text()
    expect(await span('tools/call refuse')).toMatchObject({ attributes: { 'error.type': 'tool_error' }, status: { code: 'error' } })
    await (await post('tools/call', { name: 'missing', arguments: {} }, 10)).text()
    // A tool the server never registered is named _OTHER, as openTelemetry() names it (src/exchange/request-names.ts).
    const refused = await span('tools/call _OTHER')
    expect(refused.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'gen_ai.tool.name': '_OTHER' })
    expect(refused.status).toEqual({ code: 'error', message: 'Unknown tool: missing' })
  })

  it('ends a listen stream\'s span with the stream, counting what it delivered', async () => {
    const res = await post('subscriptions/listen', { notifications: { toolsListChanged: true } }, 11)
    const stream = sseReader(res.body as ReadableStream<Uint8Array>)
    await stream.next()
    await (await post('tools/call', { name: 'notify', arguments: {} }, 12)).text()
    expect((await stream.next()).method).toBe('notifications/tools/list_changed')
    // The fixture's streams last 2 s (listen.maxLifetimeMs), then end with their result; the span with them.
    expect((await stream.next()).result).toBeDefined()
    expect((await span('subscriptions/listen')).attributes).toMatchObject({ 'mcp.method.name': 'subscriptions/listen', 'mcp.listen.deliveries': 1 })
    // The change was published in a span of the tool call that made it.
    expect(await span('publish list:tools')).toMatchObject({
      parentSpanId: (await span('tools/call notify')).spanId, attributes: { 'messaging.operation.type': 'send', 'messaging.destination.name': 'list:tools' },
    })
  })

  it('runs a task in a span of its own, marked with how the run failed', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
    expect(await (await post('tools/call', { name: 'job', arguments: {}, task: {} }, 13, meta)).json()).toMatchObject({ result: { resultType: 'task' } })
    expect(await span('execute_tool job')).toMatchObject({
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'job', 'error.type': 'tool_error' }, status: { code: 'error' },
    })
    expect((await span('execute_tool job')).attributes['mcp.task.id']).toMatch(/^[\w-]{16,}$/)
    // The handler runs inside the run's span.
    expect(await span('step')).toMatchObject({ parentSpanId: (await span('execute_tool job')).spanId })
  })

  it('says which round of a multi-round-trip request a request is', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
    const first = await (await post('tools/call', { name: 'ask', arguments: {} }, 15, meta)).json() as { result: { resultType: string; requestState: string } }
    expect(first.result.resultType).toBe('input_required')
    expect((await span('tools/call ask')).attributes['mcp.request.round']).toBe(1)
    events.length = 0
    const answers = { requestState: first.result.requestState, inputResponses: { go: { action: 'decline' } } }
    expect(await (await post('tools/call', { name: 'ask', arguments: {}, ...answers }, 16, meta)).json()).toMatchObject({ result: { content: [{ text: 'decline' }] } })
    expect((await span('tools/call ask')).attributes).toMatchObject({ 'jsonrpc.request.id': '16', 'mcp.request.round': 2 })
  })

  it('gives onError the trace and span of the request an error happened in', async () => {
    const body = await (await post('tools/call', { name: 'crash', arguments: {} }, 14)).json() as { result: { content: [{ text: string }] } }
    const call = await span('tools/call crash')
    await until(() => logs().length > 0, 5000, 'the error\'s log line')
    const logged = logs().map((line) => JSON.parse(line) as Record<string, string>)
    expect(logged).toEqual([{ traceId: call.traceId, spanId: call.spanId, errorId: expect.any(String) }])
    expect(body.result.content[0].text).toBe(`Tool crash failed unexpectedly (error id ${logged[0]!.errorId})`)
  })
})
