// mcp-edge's tools/call as in edge.mjs, with telemetry as BENCH_TELEMETRY says:
//   off: none (`telemetry: undefined`)
//   api: the default on Node with @opentelemetry/api installed and no SDK registered (the API's no-ops)
//   sdk: the SDK registered, spans through a batch processor and metrics through a periodic reader, both
//        exported over OTLP/HTTP (JSON) to BENCH_OTLP_URL
//   sampled: the same, sampling one trace in ten (parent-based, a trace-id ratio at the root), as production would
import { z } from 'zod'
import { McpServer } from 'mcp-edge'
import { serve } from 'mcp-edge/node'
import { announce } from './child.mjs'

const mode = process.env.BENCH_TELEMETRY
if (mode === 'sdk' || mode === 'sampled') {
  const { metrics, trace } = await import('@opentelemetry/api')
  const { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } = await import('@opentelemetry/sdk-trace')
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics')
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http')
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http')
  const url = process.env.BENCH_OTLP_URL
  const sampler = mode === 'sampled' ? new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.1) }) : undefined
  trace.setGlobalTracerProvider(new TracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${url}/v1/traces` }) })] }))
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${url}/v1/metrics` }), exportIntervalMillis: 1000 })] }))
}

const server = new McpServer({ name: 'bench-edge-otel', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text', input: z.object({ text: z.string() }) }, ({ text }) => text)

const running = await serve(server, { port: 0, handleSignals: false, log: false, ...(mode === 'off' ? { telemetry: undefined } : {}) })
announce(running.url)
