import { isObject } from '../protocol/jsonrpc.js'

/**
 * The Backplane port: how a change made anywhere reaches every open `subscriptions/listen` stream on every
 * instance. Events are refetch cues ("the tools list changed", "this resource changed"), not a log: a
 * subscriber that missed some gets a resync instead, and clients refetch.
 */
export type ChangeEvent =
  | { kind: 'list'; list: 'tools' | 'prompts' | 'resources' }
  | { kind: 'resource'; uri: string }

/** Delivered to a subscriber that may have missed events (a backplane connection came back). */
export interface Resync { kind: 'resync' }

export type Listener = (event: ChangeEvent | Resync) => void

export interface Subscription {
  /** Stops delivery; safe to call more than once. */
  close(): Promise<void>
}

export interface Backplane {
  publish(event: ChangeEvent): Promise<void>
  /** Resolves once events on these topics are delivered to `listener`. */
  subscribe(topics: readonly string[], listener: Listener): Promise<Subscription>
  close?(): Promise<void>
}

/**
 * Topic names. Lists are one topic each; every resource URI is its own topic, so an implementation can
 * shard resource traffic by `shardOf(topic, n)`.
 */
export function topicOf(event: ChangeEvent): string {
  return event.kind === 'list' ? `list:${event.list}` : `resource:${event.uri}`
}

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
  if (!isObject(event)) return undefined
  const e = event
  if (e.kind === 'list' && (e.list === 'tools' || e.list === 'prompts' || e.list === 'resources')) return { kind: 'list', list: e.list }
  if (e.kind === 'resource' && typeof e.uri === 'string') return { kind: 'resource', uri: e.uri }
  return undefined
}

export interface LocalFanout extends Backplane {
  /** Open subscriptions. */
  readonly size: number
  /** Hands an event to this process's subscribers of a topic. */
  deliver(topic: string, event: ChangeEvent): void
  /** Tells every subscriber, once each, that it may have missed events. */
  resync(): void
}

/** Fan-out within one process: the default backplane, and the local half of every other one. */
export function memoryBackplane(): LocalFanout {
  const byTopic = new Map<string, Set<Listener>>()
  const all = new Set<Listener>()
  const call = (listener: Listener, event: ChangeEvent | Resync) => {
    try {
      listener(event)
    } catch (e) {
      console.error('mcp-edge: a listen subscriber failed', e)
    }
  }
  const deliver = (topic: string, event: ChangeEvent) => {
    const set = byTopic.get(topic)
    if (set) for (const listener of set) call(listener, event)
  }
  return {
    get size() {
      return all.size
    },
    deliver,
    resync() {
      for (const listener of all) call(listener, { kind: 'resync' })
    },
    async publish(event) {
      deliver(topicOf(event), event)
    },
    async subscribe(names, listener) {
      const unique = [...new Set(names)]
      for (const topic of unique) {
        let set = byTopic.get(topic)
        if (!set) byTopic.set(topic, (set = new Set()))
        set.add(listener)
      }
      all.add(listener)
      return {
        async close() {
          if (!all.delete(listener)) return
          for (const topic of unique) {
            const set = byTopic.get(topic)
            set?.delete(listener)
            if (set?.size === 0) byTopic.delete(topic)
          }
        },
      }
    },
  }
}
