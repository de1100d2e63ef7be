/**
 * One request as a SERVER span and a measurement (src/exchange/types.ts RequestWatch). A listen stream's
 * span lasts as long as the stream; each change it delivers links the span to the publish that caused it.
 */
import { context, isSpanContextValid, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanContext } from '@opentelemetry/api'
import type { Answer, RequestWatch } from '../exchange/types.js'
import { Overloaded } from '../protocol/errors.js'
import { isResync, type ChangeEvent, type Resync } from '../state/backplane.js'
import { endAttributes } from './attributes.js'
import type { Instruments } from './instruments.js'
import { parseTraceparent } from './trace-context.js'

/** The span attributes the metrics keep: none that grows with requests (ids, URIs, addresses). */
const METRIC_KEYS = [
  'mcp.method.name', 'gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.prompt.name', 'mcp.protocol.version',
  'network.transport', 'network.protocol.name', 'error.type', 'rpc.response.status_code',
]
const LISTEN = 'subscriptions/listen'

export class RequestSpan implements RequestWatch {
  readonly #started = performance.now()
  #deliveries = 0

  /** The context the method runs in: needed once, at its start. */
  #inside: Context | undefined

  constructor(
    private readonly span: Span,
    inside: Context,
    private readonly attributes: Attributes,
    private readonly metrics: () => Instruments,
    private readonly captureContent: boolean,
  ) {
    this.#inside = inside
    if (attributes['mcp.method.name'] === LISTEN) metrics().streams.add(1)
  }

  run<T>(fn: () => T): T {
    const inside = this.#inside!
    this.#inside = undefined
    return context.with(inside, fn)
  }

  delivered(event: ChangeEvent | Resync): void {
    if (isResync(event)) return void this.metrics().resyncs.add(1)
    this.#deliveries++
    this.metrics().deliveries.add(1)
    const cause = this.span.isRecording() ? parseTraceparent(event.trace, undefined) : undefined
    if (cause) this.span.addLink({ context: cause })
  }

  round(number: number): void {
    this.span.setAttribute('mcp.request.round', number)
  }

  end(answer: Answer): void {
    const { span, attributes } = this
    const method = attributes['mcp.method.name']
    const ended = endAttributes(answer, this.captureContent, String(method))
    if (span.isRecording()) {
      span.setAttributes(ended)
      if (method === LISTEN) span.setAttribute('mcp.listen.deliveries', this.#deliveries)
      if (ended['error.type'] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, ...(answer.ok ? {} : { message: answer.error.message }) })
    }
    span.end()
    const measured: Attributes = {}
    for (const key of METRIC_KEYS) {
      const value = ended[key] ?? attributes[key]
      if (value !== undefined) measured[key] = value
    }
    const instruments = this.metrics()
    instruments.duration.record((performance.now() - this.#started) / 1000, measured)
    if (method === LISTEN) instruments.streams.add(-1)
    if (!answer.ok && answer.error instanceof Overloaded) instruments.refusals.add(1, { 'mcp.method.name': String(method), 'mcp.refusal.fault': answer.error.fault })
  }
}

/** Where a span of the caller's runs, for a child or a link: undefined where nothing is recorded. */
export function activeSpan(): SpanContext | undefined {
  const span = trace.getSpan(context.active())?.spanContext()
  return span && isSpanContextValid(span) ? span : undefined
}
