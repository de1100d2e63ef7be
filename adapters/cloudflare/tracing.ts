import { tracing } from 'cloudflare:workers'
import {
  endAttributes, errorType, publishAttributes, publishName, serverAttributes, spanName, startAttributes, type Answer, type JsonRpcRequest, type SpanAttributes, type Transport,
} from '../../src/core.js'
import type { RequestNames, RequestWatch, Telemetry, WorkWatch } from '../../src/index.js'

export interface WorkersTracingOptions {
  /** Record tool arguments and results on the span, as `openTelemetry({ captureContent })` does. Default false. */
  captureContent?: boolean | undefined
}

const LISTEN = 'subscriptions/listen'

/** One request as a span of the invocation's trace; its attributes reach the trace when it ends. */
class WorkersRequestSpan implements RequestWatch {
  #deliveries = 0

  constructor(private readonly span: Span, private readonly method: string, private readonly captureContent: boolean) {}

  run<T>(fn: () => T): T {
    return tracing.withActiveSpan(this.span, fn)
  }

  delivered(event: { readonly topic?: string | undefined }): void {
    if (event.topic !== undefined) this.#deliveries++
  }

  round(number: number): void {
    this.span.setAttribute('mcp.request.round', number)
  }

  end(answer: Answer): void {
    const { span, method } = this
    const ended = endAttributes(answer, this.captureContent, method)
    span.setAttributes(ended)
    if (method === LISTEN) span.setAttribute('mcp.listen.deliveries', this.#deliveries)
    if (ended['error.type'] !== undefined) span.setStatus(answer.ok ? { code: 'error' } : { code: 'error', message: answer.error.message })
    span.end()
  }
}

/**
 * Telemetry (WorkerOptions.telemetry) through Workers' built-in tracing (`tracing` of `cloudflare:workers`),
 * for a Worker with traces on (`[observability.traces] enabled = true` in wrangler.toml): each request is a
 * span named and attributed as `openTelemetry()` names it (src/otel/attributes.ts), inside the invocation's
 * trace, which Cloudflare samples and exports; there is no SDK to bundle and nothing to flush. Where traces
 * are off, the runtime's spans are not traced and nothing is worked out for a request.
 *
 * What the platform's API cannot take is left out: the `_meta` trace context cannot be a span's parent (the
 * invocation's trace is the platform's), spans carry no links (a task's run is a span of the invocation that
 * runs it, in the task Durable Object), and there are no metrics. For those, pass `openTelemetry()` from
 * `mcp-edge/otel` with a provider of your own instead.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createWorker, workersTracing } from 'mcp-edge/cloudflare'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * export { McpHub } from 'mcp-edge/cloudflare'
 * export default createWorker(server, { telemetry: workersTracing() })
 * ```
 */
export function workersTracing(options: WorkersTracingOptions = {}): Telemetry {
  const captureContent = options.captureContent ?? false
  return {
    request(message: JsonRpcRequest, transport: Transport, names: RequestNames) {
      const attributes = { ...startAttributes(message, transport, names, captureContent), ...serverAttributes(transport.request) }
      const span = traced(spanName(names), attributes)
      return span && new WorkersRequestSpan(span, names.method, captureContent)
    },
    current() {
      const span = tracing.getActiveSpan()
      if (!span?.isTraced) return undefined
      const { traceId, spanId } = span.spanContext()
      return { traceId, spanId }
    },
    // The link (the traceparent of the request that made the work) cannot be kept: Workers spans have none.
    work(name: string, attributes: Readonly<Record<string, string>>): WorkWatch | undefined {
      const span = traced(name, attributes)
      return span && {
        run: (fn) => tracing.withActiveSpan(span, fn),
        end: (errorType) => failed(span, errorType),
      }
    },
    publish(event) {
      const span = traced(publishName(event.topic), publishAttributes(event.topic))
      return span && { event, end: (error?: unknown) => failed(span, error === undefined ? undefined : errorType(error)) }
    },
  }
}

/** A span of the active one, with its attributes; none where traces are off (its no-op ended at once). */
function traced(name: string, attributes: SpanAttributes): Span | undefined {
  const span = tracing.startSpan(name)
  if (span.isTraced) return span.setAttributes(attributes)
  span.end()
  return undefined
}

/** Ends a span, marked with `type` when its work failed. */
function failed(span: Span, type: string | undefined): void {
  if (type !== undefined) span.setAttribute('error.type', type).setStatus({ code: 'error' })
  span.end()
}
