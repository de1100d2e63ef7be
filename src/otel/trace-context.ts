/**
 * Where a request's span hangs: the trace context the client put in `_meta` (`traceparent`, `tracestate`,
 * `baggage`, which the specification reserves for OpenTelemetry trace context) is its parent; the HTTP request's own context, when it differs, is linked. The deployment's propagator reads both
 * (the SDK registers W3C trace context and baggage); where none is registered, W3C trace context is read here.
 */
import { createTraceState, isSpanContextValid, propagation, trace, type Context, type Link, type SpanContext, type TextMapGetter } from '@opentelemetry/api'

const fromObject: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (typeof carrier[key] === 'string' ? carrier[key] : undefined),
}

const fromHeaders: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
}

/** version-traceid-parentid-flags; version ff is invalid, a later version may append fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/** W3C trace context, read by hand for deployments that registered no propagator. */
export function parseTraceparent(traceparent: unknown, tracestate: unknown): SpanContext | undefined {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim()) : null
  if (!match || match[1] === 'ff' || (match[1] === '00' && match[5] !== undefined)) return undefined
  const context: SpanContext = {
    traceId: match[2]!, spanId: match[3]!, traceFlags: parseInt(match[4]!, 16) & 1, isRemote: true,
    ...(typeof tracestate === 'string' && tracestate ? { traceState: createTraceState(tracestate) } : {}),
  }
  return isSpanContextValid(context) ? context : undefined
}

function extract<C>(base: Context, carrier: C, getter: TextMapGetter<C>, read: (key: string) => unknown): Context {
  const context = propagation.extract(base, carrier, getter)
  if (trace.getSpanContext(context) !== trace.getSpanContext(base)) return context
  const parsed = parseTraceparent(read('traceparent'), read('tracestate'))
  return parsed ? trace.setSpanContext(context, parsed) : context
}

/**
 * The parent of a request's span and the links it carries. `active` is the caller's context: a span of
 * HTTP instrumentation, when there is one, stands for the HTTP request; otherwise its headers are read.
 */
export function parentOf(active: Context, meta: Record<string, unknown> | undefined, request: Request | undefined): { parent: Context; links: Link[] } {
  const http = trace.getSpan(active) || !request ? active : extract(active, request.headers, fromHeaders, (k) => request.headers.get(k))
  const carried = meta && extract(active, meta, fromObject, (k) => meta[k])
  const own = carried && trace.getSpanContext(carried)
  if (!carried || !own) return { parent: http, links: [] }
  const other = trace.getSpanContext(http)
  const links = other && (other.traceId !== own.traceId || other.spanId !== own.spanId) ? [{ context: other }] : []
  return { parent: carried, links }
}
