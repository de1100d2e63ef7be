/**
 * OpenTelemetry in workerd: a Worker given a provider makes the request's SERVER span, parented by the
 * `_meta` trace context, and flushes it through waitUntil (a batch processor holds spans until then: without
 * the flush they would sit in an isolate that may be frozen once it has answered).
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { SpanKind } from '@opentelemetry/api'
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace'
import { describe, expect, it } from 'vitest'
import { createWorker } from '../../adapters/cloudflare/index.js'
import { McpServer } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { META, mcpRequest } from './sse.js'

const TRACEPARENT = '00-5b8aa5a2d2c872e8321cf37308d69df2-051581bf3cb55c13-01'
const server = new McpServer({ name: 'traced-worker', version: '1.0.0' }).tool('echo', { description: 'Echoes' }, () => 'echo')

describe('a Worker with telemetry', () => {
  it('makes a SERVER span per request and flushes it through waitUntil', async () => {
    const exporter = new InMemorySpanExporter()
    // A delay far past the test: only a flush exports.
    const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 3_600_000 })] })
    const worker = createWorker(server, { telemetry: openTelemetry({ tracerProvider }) })
    const request = mcpRequest('tools/call', { name: 'echo', arguments: {} }, 1, { ...META, traceparent: TRACEPARENT })
    const ctx = createExecutionContext()
    const res = await worker.fetch(request, { MCP_REQUEST_STATE_SECRET: 'otel-worker-secret-0123456789abcdef0123' }, ctx)
    expect(await res.json()).toMatchObject({ result: { content: [{ text: 'echo' }] } })
    await waitOnExecutionContext(ctx)
    const [span] = exporter.getFinishedSpans()
    expect(span).toMatchObject({ name: 'tools/call echo', kind: SpanKind.SERVER, parentSpanContext: { spanId: '051581bf3cb55c13' } })
    expect(span!.spanContext().traceId).toBe('5b8aa5a2d2c872e8321cf37308d69df2')
    expect(span!.attributes).toMatchObject({ 'server.address': 'mcp.example.com', 'server.port': 443, 'network.transport': 'tcp', 'mcp.protocol.version': '2026-07-28' })
  })
})
