/**
 * The metrics, made at first use: the global meter provider is not a proxy (unlike the tracer provider), so
 * instruments made before the SDK starts would stay no-ops. Names follow the MCP conventions where they name
 * one (mcp.server.operation.duration); the others are mcp-edge's own, under mcp.server.*.
 */
import { metrics, type Counter, type Histogram, type MeterProvider, type UpDownCounter } from '@opentelemetry/api'

/** The conventions' advice for operation durations, in seconds. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

export interface Instruments {
  readonly duration: Histogram
  /** Listen streams open now. */
  readonly streams: UpDownCounter
  /** Notifications a listen stream was sent for a change, and refetch cues it was sent after a possible gap. */
  readonly deliveries: Counter
  readonly resyncs: Counter
  /** How long the backplane took to take a change, with error.type when it did not. */
  readonly publishDuration: Histogram
  /** Requests refused over a limit (Overloaded: 429 or 503), by method and whose limit (`mcp.refusal.fault`). */
  readonly refusals: Counter
  /** Tasks entering a status (`mcp.task.status`): working at creation, then each change. */
  readonly tasks: Counter
  /** Requests whose token was refused, by `error.type` (RFC 6750's code, `no_token` without one). */
  readonly tokenRefusals: Counter
}

export function instruments(provider: MeterProvider | undefined): () => Instruments {
  let made: Instruments | undefined
  return () => {
    if (made) return made
    const meter = (provider ?? metrics.getMeterProvider()).getMeter('mcp-edge')
    made = {
      duration: meter.createHistogram('mcp.server.operation.duration', {
        description: 'Duration of an MCP request as the server saw it, to its answer or the end of its stream',
        unit: 's',
        advice: { explicitBucketBoundaries: BUCKETS },
      }),
      streams: meter.createUpDownCounter('mcp.server.listen.streams', { description: 'Open subscriptions/listen streams', unit: '{stream}' }),
      deliveries: meter.createCounter('mcp.server.listen.deliveries', { description: 'Changes delivered to listen streams', unit: '{notification}' }),
      resyncs: meter.createCounter('mcp.server.listen.resyncs', { description: 'Refetch cues sent to listen streams that may have missed changes', unit: '{resync}' }),
      publishDuration: meter.createHistogram('mcp.server.publish.duration', {
        description: 'How long the backplane took to accept a change',
        unit: 's',
        advice: { explicitBucketBoundaries: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2] },
      }),
      refusals: meter.createCounter('mcp.server.refusals', { description: 'Requests refused over a limit', unit: '{request}' }),
      tasks: meter.createCounter('mcp.server.task.transitions', { description: 'Tasks entering a status', unit: '{task}' }),
      tokenRefusals: meter.createCounter('mcp.server.auth.refusals', { description: 'Requests whose token was refused', unit: '{request}' }),
    }
    return made
  }
}
