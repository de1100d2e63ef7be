import { Redis, type RedisOptions } from 'ioredis'
import { memoryBackplane, parseEvent, type Backplane } from '../../src/index.js'

export interface RedisBackplaneOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /** A connection to publish on; the subscriber connection is duplicated from it. */
  client?: Redis | undefined
  /** Prepended to every channel, so several servers can share one Redis (default `mcp-edge:`). */
  prefix?: string | undefined
  redis?: RedisOptions | undefined
  /**
   * Told when the connection to Redis is lost (once per outage: ioredis reconnects by itself, and listen
   * streams get a resync when it is back). Default: one line on stderr.
   */
  onError?: ((error: unknown) => void) | undefined
}

export interface RedisBackplane extends Backplane {
  /** Channels this process is subscribed to (one per topic with at least one local subscriber). */
  readonly channels: number
  close(): Promise<void>
}

const PUBLISH_WAIT_MS = 1000

/** Reconnect quickly at first, then every 2 s at most, with jitter so instances do not reconnect in step. */
const retryStrategy = (attempt: number) => Math.min(50 * 2 ** attempt, 2000) * (0.75 + Math.random() / 2)

/**
 * Fan-out across processes over Redis pub/sub. One subscriber connection per process multiplexes every
 * topic, subscribing when a topic gets its first local subscriber and unsubscribing after its last; events
 * published here come back through Redis like everyone else's, so each is delivered exactly once. When the
 * subscriber connection comes back after a loss, every local subscriber gets a resync, because whatever
 * was published meanwhile is gone (pub/sub keeps nothing).
 */
export function redisBackplane(options: RedisBackplaneOptions = {}): RedisBackplane {
  const prefix = options.prefix ?? 'mcp-edge:'
  const base: RedisOptions = { retryStrategy, commandTimeout: 2000, ...options.redis }
  const owned = !options.client
  // Publishes wait a moment for a connection that is coming (start-up, a reconnect) and fail after that;
  // queued in ioredis instead, a publish could report failure and still go out when Redis is back.
  const own: RedisOptions = { ...base, enableOfflineQueue: false }
  // ioredis's constructor types refuse its own RedisOptions under exactOptionalPropertyTypes (replyMapping).
  const publisher = options.client ?? (options.url ? new Redis(options.url, own as never) : new Redis(own as never))
  const onError = options.onError ?? ((e: unknown) => console.error('mcp-edge: the Redis backplane lost its connection:', e))
  const local = memoryBackplane({ onError })
  /** Whether the current outage has been reported, so that a reconnect loop reports it once. */
  let reported = false
  const outage = (e: unknown) => {
    if (reported) return
    reported = true
    onError(e)
  }
  const counts = new Map<string, number>()
  /** The SUBSCRIBE in flight or done for each topic: later subscribers wait for it too. */
  const ready = new Map<string, Promise<unknown>>()
  let subscriber: Redis | undefined
  let lost = false

  const connect = () => {
    if (subscriber) return subscriber
    // Subscriptions wait out an outage (no command timeout); autoResubscribe restores them on reconnect.
    const s = publisher.duplicate({ ...base, commandTimeout: undefined, autoResubscribe: true, enableOfflineQueue: true })
    s.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      const event = parseEvent(message.toString('utf8'))
      // An event is delivered only on its own channel: a message that names another topic is foreign.
      if (event && prefix + event.topic === channel.toString('utf8')) local.deliver(event)
    })
    s.on('error', outage) // it reconnects by itself; unhandled, errors would be thrown
    s.on('close', () => {
      lost = true
    })
    s.on('ready', () => {
      reported = false
      if (!lost) return
      lost = false
      local.resync()
    })
    return (subscriber = s)
  }

  if (owned) publisher.on('error', outage) // it reconnects by itself; unhandled, errors would be thrown
  publisher.on('ready', () => (reported = false))
  const connected = () =>
    publisher.status === 'ready'
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          publisher.off('ready', onReady)
          reject(new Error('Redis is not connected'))
        }, PUBLISH_WAIT_MS)
        const onReady = () => {
          clearTimeout(timer)
          resolve()
        }
        publisher.once('ready', onReady)
      })

  return {
    get channels() {
      return counts.size
    },
    async publish(event) {
      await connected()
      await publisher.publish(prefix + event.topic, JSON.stringify(event))
    },
    async subscribe(topics, listener) {
      const unique = [...new Set(topics)]
      for (const t of unique) {
        const n = (counts.get(t) ?? 0) + 1
        counts.set(t, n)
        if (n === 1) ready.set(t, connect().subscribe(prefix + t))
      }
      const release = async () => {
        const removed = unique.filter((t) => {
          const n = counts.get(t)! - 1
          if (n > 0) counts.set(t, n)
          else {
            counts.delete(t)
            ready.delete(t)
          }
          return n === 0
        })
        if (removed.length > 0 && subscriber) await subscriber.unsubscribe(...removed.map((t) => prefix + t)).catch(() => {
          // Fails only while disconnected, an outage already reported; the channel is dropped on reconnect.
        })
      }
      const localSub = await local.subscribe(unique, listener)
      try {
        await Promise.all(unique.map((t) => ready.get(t)))
      } catch (e) {
        await localSub.close()
        await release()
        throw e
      }
      let open = true
      return {
        async close() {
          if (!open) return
          open = false
          await localSub.close()
          await release()
        },
      }
    },
    async close() {
      subscriber?.disconnect()
      if (owned) publisher.disconnect()
    },
  }
}
