/**
 * Requests as OpenTelemetry spans and metrics, through `@opentelemetry/api` alone: the deployment's SDK
 * (NodeSDK, a Workers or Lambda distribution, a provider of its own) decides where they go. With none
 * registered, the API's no-op tracer and meter make this cost a few allocations per request.
 */
import {
  context, isSpanContextValid, metrics, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Histogram, type MeterProvider, type SpanContext, type TracerProvider,
} from '@opentelemetry/api'
import type { Answer, RequestWatch, Telemetry, Transport } from '../exchange/types.js'
import type { JsonRpcRequest } from '../protocol/jsonrpc.js'
import { endAttributes, serverAttributes, spanName, startAttributes } from './attributes.js'
import { parentOf, parseTraceparent } from './trace-context.js'

export interface OpenTelemetryOptions {
  /** Default: the globally registered one (`trace.setGlobalTracerProvider`, what an SDK's start does). */
  tracerProvider?: TracerProvider | undefined
  /** Default: the globally registered one. */
  meterProvider?: MeterProvider | undefined
  /**
   * Record tool arguments and results on the span (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
   * Default false: they may hold what users would not want in a trace store.
   */
  captureContent?: boolean | undefined
}

const SCOPE = 'mcp-edge'
/** The conventions' advice for mcp.server.operation.duration, in seconds. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
/** The span attributes the duration metric keeps: none that grows with requests (ids, URIs, addresses). */
const METRIC_KEYS = [
  'mcp.method.name', 'gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.prompt.name', 'mcp.protocol.version',
  'network.transport', 'network.protocol.name', 'error.type', 'rpc.response.status_code',
]

/**
 * Telemetry (RuntimeOptions.telemetry) that makes a SERVER span of every request, named
 * `{mcp.method.name} {target}` and parented by the trace context of its `_meta`, and records its duration
 * in the histogram `mcp.server.operation.duration` (seconds).
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer } from 'mcp-edge'
 * import { openTelemetry } from 'mcp-edge/otel'
 *
 * const server = new McpServer({ name: 'traced', version: '1.0.0' })
 *   .tool('echo', { description: 'Echoes' }, () => 'echo')
 * export const handler = createFetchHandler(server, { telemetry: openTelemetry() })
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  // The global tracer provider is a proxy that follows a provider registered later; the global meter
  // provider is not, so the histogram is made at the first request, after the SDK has started.
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider()
  const tracer = tracerProvider.getTracer(SCOPE)
  let duration: Histogram | undefined
  const histogram = () => (duration ??= (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE).createHistogram('mcp.server.operation.duration', {
    description: 'Duration of an MCP request as the server saw it, to its answer or the end of its stream',
    unit: 's',
    advice: { explicitBucketBoundaries: BUCKETS },
  }))
  const captureContent = options.captureContent ?? false

  return {
    request(message: JsonRpcRequest, transport: Transport): RequestWatch {
      const started = performance.now()
      const attributes = startAttributes(message, transport, captureContent)
      const active = context.active()
      const { parent, links } = parentOf(active, message.params?._meta as Record<string, unknown> | undefined, transport.request)
      const span = tracer.startSpan(spanName(message), { kind: SpanKind.SERVER, attributes, links }, parent)
      if (span.isRecording()) span.setAttributes(serverAttributes(transport.request))
      const inside = trace.setSpan(parent, span)
      return {
        run: (fn) => context.with(inside, fn),
        end(answer: Answer) {
          const ended = endAttributes(answer, captureContent, message.method)
          if (span.isRecording()) {
            span.setAttributes(ended)
            if (ended['error.type'] !== undefined) {
              span.setStatus({ code: SpanStatusCode.ERROR, ...(answer.ok ? {} : { message: answer.error.message }) })
            }
          }
          span.end()
          const measured: Attributes = {}
          for (const key of METRIC_KEYS) {
            const value = ended[key] ?? attributes[key]
            if (value !== undefined) measured[key] = value
          }
          histogram().record((performance.now() - started) / 1000, measured)
        },
      }
    },
    current() {
      const span = activeSpan()
      return span && { traceId: span.traceId, spanId: span.spanId }
    },
    traceparent() {
      const span = activeSpan()
      return span && `00-${span.traceId}-${span.spanId}-0${span.traceFlags & 1}`
    },
    work(name, attributes, link) {
      // A trace of its own, linked to the request that made the work and to the one that runs it now, if any.
      const made = parseTraceparent(link, undefined)
      const now = activeSpan()
      const links = [made, now?.spanId === made?.spanId ? undefined : now].filter((c) => c !== undefined).map((c) => ({ context: c }))
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, links }, ROOT_CONTEXT)
      const inside = trace.setSpan(ROOT_CONTEXT, span)
      return {
        run: (fn) => context.with(inside, fn),
        end(errorType) {
          if (errorType !== undefined) {
            span.setAttribute('error.type', errorType)
            span.setStatus({ code: SpanStatusCode.ERROR })
          }
          span.end()
        },
      }
    },
    async flush() {
      await Promise.all([forceFlush(tracerProvider), forceFlush(options.meterProvider ?? metrics.getMeterProvider())])
    },
  }
}

/** The span the caller runs in, when it has valid ids. */
function activeSpan(): SpanContext | undefined {
  const span = trace.getSpan(context.active())?.spanContext()
  return span && isSpanContextValid(span) ? span : undefined
}

/** An SDK's providers can flush; the API's interfaces cannot say so (and the global tracer provider is a proxy). */
function forceFlush(provider: object): Promise<void> | undefined {
  const sdk = (provider as { getDelegate?: () => object }).getDelegate?.() ?? provider
  const flush = (sdk as { forceFlush?: () => Promise<void> }).forceFlush
  return typeof flush === 'function' ? flush.call(sdk) : undefined
}
