/**
 * The real OpenTelemetry SDK with in-memory exporters: the spans a test's requests made, and the metrics
 * collected on demand; and an OTLP/HTTP receiver for spans that leave their process.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace'

/** A reader that collects only when asked. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface OtelSdk {
  readonly tracerProvider: TracerProvider
  readonly meterProvider: MeterProvider
  /** Every span ended so far. */
  spans(): ReadableSpan[]
  /** The data points of one histogram, collected now. */
  histogram(name: string): Promise<DataPoint<Histogram>[]>
  /** The values of a counter's (or up-down counter's) data points, collected now. */
  sums(name: string): Promise<number[]>
  /** A counter's values by the value of one of its attributes, collected now. */
  sumsBy(name: string, attribute: string): Promise<Record<string, number>>
  /** The unit and description of every metric that has data, by name, collected now. */
  descriptors(): Promise<Record<string, { unit: string; description: string }>>
  /** The instrumentation scopes (meter names) that have metrics, collected now. */
  meters(): Promise<string[]>
  shutdown(): Promise<void>
}

export function otelSdk(): OtelSdk {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const reader = new OnDemandReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const points = async (name: string) => {
    const { resourceMetrics } = await reader.collect()
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)?.dataPoints ?? []
  }
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    histogram: async (name) => (await points(name)) as DataPoint<Histogram>[],
    sums: async (name) => ((await points(name)) as DataPoint<number>[]).map((p) => p.value),
    descriptors: async () => {
      const { resourceMetrics } = await reader.collect()
      const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics)
      return Object.fromEntries(all.map((m) => [m.descriptor.name, { unit: m.descriptor.unit, description: m.descriptor.description }]))
    },
    meters: async () => (await reader.collect()).resourceMetrics.scopeMetrics.map((s) => s.scope.name),
    sumsBy: async (name, attribute) => {
      const sums: Record<string, number> = {}
      for (const p of (await points(name)) as DataPoint<number>[]) sums[String(p.attributes[attribute])] = (sums[String(p.attributes[attribute])] ?? 0) + p.value
      return sums
    },
    shutdown: async () => {
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}

export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[]
  links?: { traceId: string; spanId: string; flags?: number }[]
  /** The service.name of the process that sent it. */
  service: string
}

export interface OtlpReceiver {
  readonly url: string
  /** Spans that arrived at /v1/traces. */
  readonly spans: OtlpSpan[]
  /** Names of the metrics that arrived at /v1/metrics. */
  readonly metricNames: Set<string>
  /** The content types they came as. */
  readonly contentTypes: Set<string>
  close(): Promise<void>
}

/** An OTLP/HTTP receiver taking JSON, on a free loopback port: what a collector would have been sent. */
export function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = []
  const metricNames = new Set<string>()
  const contentTypes = new Set<string>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      contentTypes.add(String(req.headers['content-type']))
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      if (req.url === '/v1/traces') {
        for (const r of body.resourceSpans ?? []) {
          const service = r.resource?.attributes?.find((a: { key: string }) => a.key === 'service.name')?.value?.stringValue
          for (const s of r.scopeSpans ?? []) spans.push(...s.spans.map((span: OtlpSpan) => ({ ...span, service })))
        }
      } else if (req.url === '/v1/metrics') {
        for (const r of body.resourceMetrics ?? []) for (const s of r.scopeMetrics ?? []) for (const m of s.metrics ?? []) metricNames.add(m.name)
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, metricNames, contentTypes,
    close: () => new Promise<void>((done) => {
      server.closeAllConnections()
      server.close(() => done())
    }),
  })))
}
