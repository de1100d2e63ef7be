import { isObject, type JsonObject } from '../protocol/jsonrpc.js'

/**
 * The Backplane port: how a change made anywhere reaches every open `subscriptions/listen` stream on every
 * instance. Events are refetch cues on a topic ("list:tools", "resource:<uri>", or an extension's own, such
 * as a task id), optionally with a JSON payload for extensions whose notifications carry one; not a log: a
 * subscriber that missed some gets a resync instead, and clients refetch.
 */
export interface ChangeEvent {
  readonly topic: string
  readonly data?: JsonObject | undefined
  /** The trace context (W3C traceparent) of its publish, when traced: a delivery links back to it. */
  readonly trace?: string | undefined
}

/** Delivered to a subscriber that may have missed events (a backplane connection came back). */
export interface Resync { readonly topic?: undefined; readonly resync: true }

export const RESYNC: Resync = Object.freeze({ resync: true })
export const isResync = (event: ChangeEvent | Resync): event is Resync => 'resync' in event

export type Listener = (event: ChangeEvent | Resync) => void

export interface Subscription {
  /** Stops delivery; safe to call more than once. */
  close(): Promise<void>
}

export interface Backplane {
  /**
   * What it is, in a word or two (`memory`, `redis`, `durable-objects`): what start-up lines show. Optional;
   * one without it is shown as `custom`.
   */
  readonly kind?: string | undefined
  publish(event: ChangeEvent): Promise<void>
  /**
   * Resolves once events on these topics are delivered to `listener`. The backplane may keep `topics` itself
   * until the subscription closes (a listen stream holds the array anyway): the caller leaves it as it is.
   * One listener may hold several subscriptions (a session stream holds one per topic it follows), each
   * closed on its own; they may share a connection (adapters/cloudflare/backplane.ts).
   */
  subscribe(topics: readonly string[], listener: Listener): Promise<Subscription>
  close?(): Promise<void>
  /**
   * Counts one client's open listen streams over every instance that shares the backplane (where an
   * instance holds few streams: on Lambda, one): true if `stream` may open beside fewer than `max` others,
   * then held until `untilMs` or `releaseStream`. Optional: without it each instance counts its own.
   */
  admitStream?(client: string, stream: string, max: number, untilMs: number): Promise<boolean>
  releaseStream?(client: string, stream: string): Promise<void>
}

/** The topic of a list: one per list. */
export const listChanged = (list: 'tools' | 'prompts' | 'resources'): ChangeEvent => ({ topic: `list:${list}` })

/** The topic of one resource: every URI is its own, so an implementation can shard by `shardOf(topic, n)`. */
export const resourceUpdated = (uri: string): ChangeEvent => ({ topic: `resource:${uri}` })

/** FNV-1a over UTF-16 code units: a stable, cheap 32-bit hash (not for security). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** The shard of `shards` a topic belongs to. */
export const shardOf = (topic: string, shards: number): number => fnv1a(topic) % shards

/** Reads an event received from another process; anything else (foreign messages, garbage) is undefined. */
export function parseEvent(text: string): ChangeEvent | undefined {
  let event: unknown
  try {
    event = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isObject(event) || typeof event.topic !== 'string' || event.topic === '') return undefined
  if (event.data !== undefined && !isObject(event.data)) return undefined
  // A traceparent is 55 characters; anything else there is dropped, not the change.
  const trace = typeof event.trace === 'string' && event.trace.length <= 128 ? event.trace : undefined
  return { topic: event.topic, ...(event.data === undefined ? {} : { data: event.data }), ...(trace === undefined ? {} : { trace }) }
}

export interface LocalFanout extends Backplane {
  /** Open subscriptions. */
  readonly size: number
  /** Topics with at least one open subscription. */
  readonly topics: number
  /** Hands an event to this process's subscribers of its topic. */
  deliver(event: ChangeEvent): void
  /** Tells every listener, once each however many subscriptions it holds, that it may have missed events. */
  resync(): void
}

export interface MemoryBackplaneOptions {
  /** Where a failing subscriber is reported (default: logged to stderr). */
  onError?: ((error: unknown) => void) | undefined
}

/**
 * Fan-out within one process: the default backplane, and the local half of every other one.
 *
 * @example
 * ```ts
 * import { McpServer, memoryBackplane } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'feed', version: '1.0.0' })
 *   .resource('feed://latest', { name: 'latest' }, () => 'nothing yet')
 *
 * // The default of every entry; made by hand, one is shared by two servers of one process.
 * const backplane = memoryBackplane()
 * const inside = await serve(server, { backplane, port: 3000 })
 * await serve(server, { backplane, port: 3001, host: '0.0.0.0', allowedHosts: ['feed.example.com'] })
 * await inside.notify.resourceUpdated('feed://latest')   // reaches the listen streams of both
 * ```
 */
export function memoryBackplane(options: MemoryBackplaneOptions = {}): LocalFanout {
  const onError = options.onError ?? ((e: unknown) => console.error('mcp-edge: a listen subscriber failed', e))
  // Subscriptions, not listeners: one listener may hold several (a session stream holds one per topic it
  // follows, src/exchange/session-stream.ts), and each closes on its own.
  const byTopic = new Map<string, Set<MemorySubscription>>()
  const all = new Set<MemorySubscription>()
  const call = (listener: Listener, event: ChangeEvent | Resync) => {
    try {
      listener(event)
    } catch (e) {
      onError(e)
    }
  }
  const deliver = (event: ChangeEvent) => {
    const set = byTopic.get(event.topic)
    if (set) for (const s of set) call(s.listener, event)
  }
  const unsubscribe = (subscription: MemorySubscription) => {
    if (!all.delete(subscription)) return
    for (const topic of subscription.topics) {
      const set = byTopic.get(topic)
      set?.delete(subscription)
      if (set?.size === 0) byTopic.delete(topic)
    }
  }
  return {
    kind: 'memory',
    get size() {
      return all.size
    },
    get topics() {
      return byTopic.size
    },
    deliver,
    resync() {
      for (const listener of new Set([...all].map((s) => s.listener))) call(listener, RESYNC)
    },
    async publish(event) {
      deliver(event)
    },
    async subscribe(names, listener) {
      const subscription = new MemorySubscription(distinctTopics(names), listener, unsubscribe)
      for (const topic of subscription.topics) {
        let set = byTopic.get(topic)
        if (!set) byTopic.set(topic, (set = new Set()))
        set.add(subscription)
      }
      all.add(subscription)
      return subscription
    },
  }
}

/** The topics, each once: the array itself where it names none twice, so that a stream does not hold a copy. */
export function distinctTopics(topics: readonly string[]): readonly string[] {
  const set = new Set(topics)
  return set.size === topics.length ? topics : [...set]
}

/** An object rather than a closure with its scope: a process holds one for each open listen stream. */
class MemorySubscription implements Subscription {
  constructor(
    readonly topics: readonly string[],
    readonly listener: Listener,
    private readonly unsubscribe: (subscription: MemorySubscription) => void,
  ) {}

  async close(): Promise<void> {
    this.unsubscribe(this)
  }
}
