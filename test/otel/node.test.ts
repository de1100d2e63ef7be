/**
 * OpenTelemetry on Node without wiring: serve() and serveStdio() trace through whatever SDK the process
 * registered. `npm start` exporting over OTLP: test/otel/processes.test.ts.
 */
import { metrics, SpanKind, trace } from '@opentelemetry/api'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { serve, serveStdio } from '../../adapters/node/index.js'
import { McpServer } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { otelSdk } from '../helpers/otel.js'
import { META_2026, rpc } from '../helpers/server.js'

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const PARENT_ID = 'b7ad6b7169203331'
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`

const definition = () => new McpServer({ name: 'node-traced', version: '1.0.0' }).tool('echo', { description: 'Echoes' }, () => 'echo')

describe('Node without wiring', () => {
  it('serve() and serveStdio() trace through the registered SDK', async () => {
    const sdk = otelSdk()
    trace.setGlobalTracerProvider(sdk.tracerProvider)
    metrics.setGlobalMeterProvider(sdk.meterProvider)
    try {
      const running = await serve(definition(), { port: 0, handleSignals: false, log: false })
      try {
        const { body } = await rpc(fetch, 'tools/call', { name: 'echo', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT } }, { url: running.url })
        expect(body.result.content[0].text).toBe('echo')
      } finally {
        await running.close()
      }
      const [http] = sdk.spans()
      expect(http).toMatchObject({ name: 'tools/call echo', kind: SpanKind.SERVER, parentSpanContext: { spanId: PARENT_ID } })
      expect(http!.attributes).toMatchObject({ 'network.transport': 'tcp', 'server.address': '127.0.0.1', 'server.port': Number(new URL(running.url).port) })

      const input = new PassThrough()
      const output = new PassThrough()
      const stdio = serveStdio(definition(), { input, output })
      input.write(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { ...META_2026(), traceparent: TRACEPARENT } } }) + '\n')
      await until(() => sdk.spans().length === 2)
      input.end()
      await stdio.closed
      const piped = sdk.spans()[1]!
      expect(piped.name).toBe('tools/call echo')
      expect(piped.spanContext().traceId).toBe(TRACE_ID)
      expect(piped.attributes).toMatchObject({ 'network.transport': 'pipe', 'jsonrpc.request.id': '7' })
      expect(piped.attributes['server.address']).toBeUndefined()
      expect((await sdk.histogram('mcp.server.operation.duration')).map((p) => [p.attributes['network.transport'], p.value.count]).sort())
        .toEqual([['pipe', 1], ['tcp', 1]])
    } finally {
      trace.disable()
      metrics.disable()
      await sdk.shutdown()
    }
  })
})

