/**
 * Changes traced from the publish to the streams they reach: a publish is a PRODUCER span in the trace of
 * the request that made the change, its context travels with the change through the backplane, and a listen
 * stream's span links to every change it delivered and counts them; and the counters of refusals. Across
 * processes: test/otel/processes.test.ts.
 */
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, McpServer, memoryBackplane } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { until } from '../helpers/async.js'
import { otelSdk } from '../helpers/otel.js'
import { META_2026, modernHeaders, openListen, rpc } from '../helpers/server.js'

const TRACE_ID = 'c0ffee00c0ffee00c0ffee00c0ffee00'
const traceparent = (span: string) => `00-${TRACE_ID}-${span}-01`

const manager = new AsyncLocalStorageContextManager()
beforeAll(() => void context.setGlobalContextManager(manager.enable()))
afterAll(() => context.disable())

describe('a change in one process', () => {
  it('is published in a PRODUCER span of the request that made it, and the listen span links to it and counts it', async () => {
    const sdk = otelSdk()
    const server = new McpServer({ name: 'changes', version: '1.0.0' }).tool('bump', { description: 'Changes the tools' }, async (_args, ctx) => {
      await ctx.notify.toolsChanged()
      return 'bumped'
    })
    const backplane = memoryBackplane()
    const mcp = createFetchHandler(server, { backplane, telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) })
    try {
      const listen = await openListen(mcp, { toolsListChanged: true })
      expect(await listen.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
      // A change the stream did not ask for is no delivery.
      await mcp.notify.promptsChanged()
      await rpc(mcp, 'tools/call', { name: 'bump', arguments: {}, _meta: { ...META_2026(), traceparent: traceparent('1000000000000001') } })
      expect(await listen.next()).toMatchObject({ method: 'notifications/tools/list_changed' })
      // A refetch cue after a possible gap is counted apart.
      backplane.resync()
      expect(await listen.next()).toMatchObject({ method: 'notifications/tools/list_changed' })
      expect(await sdk.sums('mcp.server.listen.resyncs')).toEqual([1])
      expect(await sdk.sums('mcp.server.listen.streams')).toEqual([1])
      await listen.cancel()
      await until(() => sdk.spans().some((s) => s.name === 'subscriptions/listen'))

      const call = sdk.spans().find((s) => s.name === 'tools/call bump')!
      const publishes = sdk.spans().filter((s) => s.kind === SpanKind.PRODUCER)
      expect(publishes).toHaveLength(2)
      const publish = publishes.find((s) => s.parentSpanContext?.spanId === call.spanContext().spanId)!
      expect(publish.name).toMatch(/^publish /)
      expect(publish.attributes).toMatchObject({ 'messaging.operation.type': 'send', 'messaging.destination.name': expect.any(String) })
      expect(publish.spanContext().traceId).toBe(TRACE_ID)
      expect(publish.parentSpanContext?.spanId).toBe(call.spanContext().spanId)
      // A publish the backplane took is no error.
      expect(publish.status.code).toBe(SpanStatusCode.UNSET)
      expect(publish.attributes['error.type']).toBeUndefined()
      const stream = sdk.spans().find((s) => s.name === 'subscriptions/listen')!
      expect(stream.links.map((l) => l.context.spanId)).toEqual([publish.spanContext().spanId])
      expect(stream.attributes['mcp.listen.deliveries']).toBe(1)
      expect(await sdk.sums('mcp.server.listen.streams')).toEqual([0])
      expect(await sdk.sums('mcp.server.listen.deliveries')).toEqual([1])
      // Spans and metrics both come under the library's own name, which backends filter by.
      expect(await sdk.meters()).toEqual(['mcp-edge'])
      expect(new Set(sdk.spans().map((s) => s.instrumentationScope.name))).toEqual(new Set(['mcp-edge']))
      const published = await sdk.histogram('mcp.server.publish.duration')
      expect(published.map((p) => [p.attributes, p.value.count])).toEqual([[{}, 2]])
      // In seconds: two in-memory publishes take well under one.
      expect(published[0]!.value.sum).toBeGreaterThan(0)
      expect(published[0]!.value.sum).toBeLessThan(1)
      expect(published[0]!.value.buckets.boundaries).toEqual([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2])
      // Every instrument says what it counts, and in what unit.
      expect(await sdk.descriptors()).toEqual({
        'mcp.server.operation.duration': { unit: 's', description: 'Duration of an MCP request as the server saw it, to its answer or the end of its stream' },
        'mcp.server.listen.streams': { unit: '{stream}', description: 'Open subscriptions/listen streams' },
        'mcp.server.listen.deliveries': { unit: '{notification}', description: 'Changes delivered to listen streams' },
        'mcp.server.listen.resyncs': { unit: '{resync}', description: 'Refetch cues sent to listen streams that may have missed changes' },
        'mcp.server.publish.duration': { unit: 's', description: 'How long the backplane took to accept a change' },
      })
    } finally {
      await mcp.close()
      await sdk.shutdown()
    }
  })
})

describe('a publish that fails', () => {
  it('marks its span and the duration with the error', async () => {
    const sdk = otelSdk()
    const backplane = memoryBackplane()
    backplane.publish = async () => {
      throw new TypeError('the backplane is down')
    }
    const mcp = createFetchHandler(new McpServer({ name: 'down', version: '1.0.0' }), {
      backplane, onError: () => {}, telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    })
    try {
      expect(await mcp.notify.toolsChanged()).toBe(false)
      const [span] = sdk.spans()
      expect(span).toMatchObject({ kind: SpanKind.PRODUCER, attributes: { 'error.type': 'TypeError' }, status: { code: SpanStatusCode.ERROR } })
      expect((await sdk.histogram('mcp.server.publish.duration')).map((p) => p.attributes)).toEqual([{ 'error.type': 'TypeError' }])
    } finally {
      await mcp.close()
      await sdk.shutdown()
    }
  })
})

describe('refusals', () => {
  it('counts requests refused over a limit by method and whose limit, and tokens refused by their error', async () => {
    const sdk = otelSdk()
    const mcp = createFetchHandler(new McpServer({ name: 'limits', version: '1.0.0' }).tool('t', { description: 't' }, () => 't'), {
      listen: { maxStreams: 1 },
      telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    })
    const guarded = createFetchHandler(new McpServer({ name: 'tokens', version: '1.0.0' }).tool('t', { description: 't' }, () => 't'), {
      auth: bearerAuth({
        resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://as.example'],
        verify: async (token) => (token === 'good' ? { subject: 'ann', claims: {} } : undefined),
      }),
      telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
    })
    try {
      const first = await openListen(mcp, { toolsListChanged: true })
      await first.next()
      const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
      const second = await rpc(mcp, 'subscriptions/listen', params, { id: 'listen-2' })
      expect(second.status).toBe(503)
      await first.cancel()
      expect(await sdk.sumsBy('mcp.server.refusals', 'mcp.refusal.fault')).toEqual({ server: 1 })
      // Bodies refused before their method is known: too large (the client's), more than the server holds at once (its own).
      const telemetry = openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider })
      const small = createFetchHandler(new McpServer({ name: 'bodies', version: '1.0.0' }), { maxBodyBytes: 64, telemetry })
      const busy = createFetchHandler(new McpServer({ name: 'busy', version: '1.0.0' }), { maxInFlightBytes: 64, maxBodyBytes: 1024, telemetry })
      expect((await rpc(small, 'tools/list', { _meta: META_2026() })).status).toBe(413)
      expect((await rpc(busy, 'tools/list', { _meta: META_2026() })).status).toBe(503)
      expect(await sdk.sumsBy('mcp.server.refusals', 'mcp.refusal.limit')).toEqual({ undefined: 1, maxBodyBytes: 1, maxInFlightBytes: 1 })
      expect(await sdk.sumsBy('mcp.server.refusals', 'mcp.refusal.fault')).toEqual({ server: 2, client: 1 })
      const headers = (token?: string) => ({ ...modernHeaders('tools/list'), ...(token ? { authorization: `Bearer ${token}` } : {}) })
      expect((await rpc(guarded, 'tools/list', { _meta: META_2026() }, { headers: headers() })).status).toBe(401)
      expect((await rpc(guarded, 'tools/list', { _meta: META_2026() }, { headers: headers('bad') })).status).toBe(401)
      expect((await rpc(guarded, 'tools/list', { _meta: META_2026() }, { headers: headers('bad') })).status).toBe(401)
      expect((await rpc(guarded, 'tools/list', { _meta: META_2026() }, { headers: headers('good') })).status).toBe(200)
      expect(await sdk.sumsBy('mcp.server.auth.refusals', 'error.type')).toEqual({ no_token: 1, invalid_token: 2 })
      expect(await sdk.descriptors()).toMatchObject({
        'mcp.server.refusals': { unit: '{request}', description: 'Requests refused over a limit' },
        'mcp.server.auth.refusals': { unit: '{request}', description: 'Requests whose token was refused' },
      })
    } finally {
      await mcp.close()
      await guarded.close()
      await sdk.shutdown()
    }
  })
})
