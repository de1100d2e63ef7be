/**
 * Requests as OpenTelemetry spans and metrics, through `@opentelemetry/api` alone: the deployment's SDK
 * (NodeSDK, a Workers or Lambda distribution, a provider of its own) decides where they go. With none
 * registered, a request is not watched at all: the API's no-op tracer and meter are asked, and nothing is kept.
 */
import { context, createNoopMeter, metrics, ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { RequestNames, RequestWatch, Telemetry, Transport, WorkWatch } from '../exchange/types.js'
import type { JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { ChangeEvent } from '../state/backplane.js'
import { errorType, publishAttributes, publishName, serverAttributes, spanName, startAttributes } from './attributes.js'
import { instruments, type Instruments } from './instruments.js'
import { activeSpan, RequestSpan } from './request-span.js'
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

/** What the API's global tracer provider stands in for while no SDK is registered. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate()

/** A span's context as W3C traceparent: what travels in a task record or a published change. */
const traceparentOf = (span: { traceId: string; spanId: string; traceFlags: number }) => `00-${span.traceId}-${span.spanId}-0${span.traceFlags & 1}`

class OpenTelemetry implements Telemetry {
  readonly #tracerProvider: TracerProvider
  readonly #tracer: Tracer
  readonly #metrics: () => Instruments
  readonly #captureContent: boolean
  #dormantUntil = 0

  constructor(private readonly options: OpenTelemetryOptions) {
    // The global tracer provider is a proxy that follows a provider registered later.
    this.#tracerProvider = options.tracerProvider ?? trace.getTracerProvider()
    this.#tracer = this.#tracerProvider.getTracer('mcp-edge')
    this.#metrics = instruments(options.meterProvider)
    this.#captureContent = options.captureContent ?? false
  }

  request(message: JsonRpcRequest, transport: Transport, names: RequestNames): RequestWatch | undefined {
    if (this.#dormant()) return undefined
    const attributes = startAttributes(message, transport, names, this.#captureContent)
    const { parent, links } = parentOf(context.active(), message.params?._meta as Record<string, unknown> | undefined, transport.request)
    const span = this.#tracer.startSpan(spanName(names), { kind: SpanKind.SERVER, attributes, links }, parent)
    if (span.isRecording()) span.setAttributes(serverAttributes(transport.request))
    // Nothing would record it (no SDK, or a trace not sampled and no meter): a listen stream then holds nothing of it.
    else if (this.#unmeasured()) return undefined
    return new RequestSpan(span, trace.setSpan(parent, span), attributes, this.#metrics, this.#captureContent)
  }

  /**
   * No SDK registered at all: nothing would record a request, so nothing is worked out for it. Asked again
   * at most once a second, so that an SDK started after the server is seen within a second.
   */
  #dormant(): boolean {
    const now = Date.now()
    if (now < this.#dormantUntil) return true
    const dormant = this.#untraced() && this.#unmeasured()
    this.#dormantUntil = dormant ? now + 1000 : 0
    return dormant
  }

  #untraced(): boolean {
    const provider = this.#tracerProvider
    return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_TRACER_PROVIDER
  }

  #unmeasured(): boolean {
    return (this.options.meterProvider ?? metrics.getMeterProvider()).getMeter('mcp-edge') === createNoopMeter()
  }

  current() {
    const span = activeSpan()
    return span && { traceId: span.traceId, spanId: span.spanId }
  }

  traceparent() {
    const span = activeSpan()
    return span && traceparentOf(span)
  }

  work(name: string, attributes: Readonly<Record<string, string>>, link: string | undefined): WorkWatch {
    // A trace of its own, linked to the request that made the work and to the one that runs it now, if any.
    const made = parseTraceparent(link, undefined)
    const now = activeSpan()
    const links = [made, now?.spanId === made?.spanId ? undefined : now].filter((c) => c !== undefined).map((c) => ({ context: c }))
    const span = this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, links }, ROOT_CONTEXT)
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
  }

  publish(event: ChangeEvent) {
    // A PRODUCER span in the caller's trace; the change carries its context to every stream it reaches.
    const span = this.#tracer.startSpan(publishName(event.topic), { kind: SpanKind.PRODUCER, attributes: publishAttributes(event.topic) })
    const started = performance.now()
    const carried = span.isRecording() ? { ...event, trace: traceparentOf(span.spanContext()) } : event
    return {
      event: carried,
      end: (error?: unknown) => {
        const failed = error === undefined ? {} : { 'error.type': errorType(error) }
        if (error !== undefined) span.setAttributes(failed).setStatus({ code: SpanStatusCode.ERROR })
        span.end()
        this.#metrics().publishDuration.record((performance.now() - started) / 1000, failed)
      },
    }
  }

  count(what: 'task' | 'token' | 'refusal', attributes: Readonly<Record<string, string | number>>): void {
    const { tasks, tokenRefusals, refusals } = this.#metrics()
    const counter = what === 'task' ? tasks : what === 'token' ? tokenRefusals : refusals
    counter.add(1, attributes)
  }

  async flush(): Promise<void> {
    await Promise.all([forceFlush(this.#tracerProvider), forceFlush(this.options.meterProvider ?? metrics.getMeterProvider())])
  }
}

/**
 * Telemetry (RuntimeOptions.telemetry) that makes a SERVER span of every request, named
 * `{mcp.method.name} {target}` and parented by the trace context of its `_meta`, records its duration in
 * the histogram `mcp.server.operation.duration` (seconds), and traces task runs, publishes and deliveries.
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
  return new OpenTelemetry(options)
}

/** An SDK's providers can flush; the API's interfaces cannot say so (and the global tracer provider is a proxy). */
function forceFlush(provider: object): Promise<void> | undefined {
  const sdk = (provider as { getDelegate?: () => object }).getDelegate?.() ?? provider
  const flush = (sdk as { forceFlush?: () => Promise<void> }).forceFlush
  return typeof flush === 'function' ? flush.call(sdk) : undefined
}
