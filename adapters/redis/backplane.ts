import { Redis, type RedisOptions } from 'ioredis'
import { parseEvent } from '../../src/core.js'
import { memoryBackplane, RESYNC, type Backplane } from '../../src/index.js'
import { logOutage, redisAddress, unreachable } from './outage.js'
import { deadlinePublisher } from './publish.js'

export interface RedisBackplaneOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /** A connection to publish on; the subscriber connection is duplicated from it. */
  client?: Redis | undefined
  /** Prepended to every channel, so several servers can share one Redis (default `mcp-edge:`). */
  prefix?: string | undefined
  redis?: RedisOptions | undefined
  /**
   * Told when Redis cannot be reached, is lost or stalls (once per outage: the connections come back by
   * themselves, and listen streams get a resync when they do), and when a listen subscriber throws.
   * Default: one line on stderr, which tells a Redis never reached from one lost, the password left out.
   */
  onError?: ((error: unknown) => void) | undefined
  /**
   * How long Redis has to accept a publish (default 1000 ms, by Redis's clock). Later than that, Redis
   * refuses it, even if it was already sent, and the publish fails: it is never delivered late.
   */
  publishTimeoutMs?: number | undefined
  /**
   * How long a new listen waits for its subscription (default 2000 ms). Then it is acknowledged anyway and
   * gets a refetch cue once the subscription is live, so that a Redis outage never holds a response back.
   */
  subscribeWaitMs?: number | undefined
  /**
   * Each connection is pinged this often (default 2000 ms); one that does not answer within as long is
   * treated as lost: a stalled Redis is noticed like a closed one, and streams resync when it answers again.
   */
  heartbeatMs?: number | undefined
}

export interface RedisBackplane extends Backplane {
  /** Channels this process is subscribed to (one per topic with at least one local subscriber). */
  readonly channels: number
  close(): Promise<void>
}

/** Reconnect quickly at first, then every 2 s at most, with jitter so instances do not reconnect in step. */
const retryStrategy = (attempt: number) => Math.min(50 * 2 ** attempt, 2000) * (0.75 + Math.random() / 2)

/**
 * Fan-out across processes over Redis pub/sub. One subscriber connection per process multiplexes every
 * topic, subscribing when a topic gets its first local subscriber and unsubscribing after its last; events
 * published here come back through Redis like everyone else's, so each is delivered exactly once. When the
 * subscriber connection comes back after a loss or a stall, every local subscriber gets a resync, because
 * whatever was published meanwhile is gone (pub/sub keeps nothing).
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 * import { redisBackplane } from 'mcp-edge/redis'   // needs ioredis
 *
 * const server = new McpServer({ name: 'news', version: '1.0.0' })
 *   .resource('news://latest', { name: 'latest' }, () => 'nothing yet')
 *
 * const backplane = redisBackplane({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: 'news:' })
 * const running = await serve(server, { backplane })
 * await running.notify.resourceUpdated('news://latest')   // every process's listen streams hear of it
 * running.http.once('close', () => void backplane.close())
 * ```
 */
export function redisBackplane(options: RedisBackplaneOptions = {}): RedisBackplane {
  const prefix = options.prefix ?? 'mcp-edge:'
  const subscribeWaitMs = options.subscribeWaitMs ?? 2000
  const heartbeatMs = options.heartbeatMs ?? 2000
  // A connection reset after a stall is destroyed at once: a stopped Redis never finishes a polite close.
  const base: RedisOptions = { retryStrategy, disconnectTimeout: 100, ...options.redis }
  const owned = !options.client
  // A publish goes out now or never: nothing waits in an offline queue, nothing is resent after a reconnect.
  const own: RedisOptions = { ...base, enableOfflineQueue: false, autoResendUnfulfilledCommands: false }
  // ioredis's constructor types refuse its own RedisOptions under exactOptionalPropertyTypes (replyMapping).
  const publisher = options.client ?? (options.url ? new Redis(options.url, own as never) : new Redis(own as never))
  const publishTimeoutMs = options.publishTimeoutMs ?? 1000
  const sender = deadlinePublisher(publisher)
  const onError = options.onError ?? logOutage('Redis backplane')
  const subscriberFailed = options.onError ?? ((e: unknown) => console.error('mcp-edge: a listen subscriber failed', e))
  const local = memoryBackplane({ onError: subscriberFailed })
  const where = redisAddress(publisher)
  /** Whether Redis ever answered: until then a failure is "could not connect", after it "lost". */
  let reached = false
  /** Whether the current outage has been reported, so that a reconnect loop reports it once. */
  let reported = false
  const outage = (e: unknown) => {
    if (reported) return
    reported = true
    onError(e)
  }
  /** A connection's `error` event: it reconnects by itself; unhandled, errors would be thrown. */
  const failed = (e: unknown) => outage(unreachable(reached, where, e))
  const up = () => {
    reached = true
    reported = false
  }
  const counts = new Map<string, number>()
  /** The SUBSCRIBE in flight or done for each topic: later subscribers wait for it too. */
  const ready = new Map<string, Promise<unknown>>()
  let subscriber: Redis | undefined
  let lost = false
  const beats: (() => void)[] = []

  const connect = () => {
    if (subscriber) return subscriber
    // Subscriptions wait out an outage, however long; autoResubscribe restores them on reconnect.
    const s = publisher.duplicate({
      ...base, commandTimeout: undefined, maxRetriesPerRequest: null, autoResubscribe: true, enableOfflineQueue: true,
    })
    s.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      const event = parseEvent(message.toString('utf8'))
      // An event is delivered only on its own channel: a message that names another topic is foreign.
      if (event && prefix + event.topic === channel.toString('utf8')) local.deliver(event)
    })
    s.on('error', failed)
    s.on('close', () => {
      lost = true
    })
    s.on('ready', () => {
      up()
      if (!lost) return
      lost = false
      local.resync()
    })
    beats.push(heartbeat(s, heartbeatMs, () => s.ping(), () => {
      outage(new Error(`Redis did not answer a PING within ${heartbeatMs} ms: reconnecting`))
      s.disconnect(true)
    }))
    return (subscriber = s)
  }

  /** Resolved while publishes can go out: the publisher is ready, its clock read, and not stalled. */
  let usable = opening()
  const unusable = () => {
    if (usable.done) usable = opening()
  }
  const synced = () => sender.sync().then(() => usable.open(), outage)
  if (owned) publisher.on('error', failed)
  publisher.on('ready', () => {
    up()
    void synced()
  })
  publisher.on('close', unusable)
  if (publisher.status === 'ready') {
    reached = true
    void synced()
  }
  // The publisher's heartbeat reads Redis's clock too, keeping publish deadlines true to it.
  beats.push(heartbeat(publisher, heartbeatMs, synced, () => {
    unusable()
    outage(new Error(`Redis did not answer within ${heartbeatMs} ms: publishes fail until it does`))
    if (owned) publisher.disconnect(true)
  }))

  return {
    kind: 'redis',
    get channels() {
      return counts.size
    },
    async publish(event) {
      // One deadline covers waiting for a connection and Redis accepting the publish.
      const deadline = Date.now() + publishTimeoutMs
      if (!usable.done && !(await within(usable.promise, publishTimeoutMs))) {
        throw new Error(`Redis was not reachable within ${publishTimeoutMs} ms; the change was not published`)
      }
      await sender.publish(prefix + event.topic, JSON.stringify(event), deadline)
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
      const live = Promise.all(unique.map((t) => ready.get(t)))
      let open = true
      let timely: boolean
      try {
        timely = await within(live, subscribeWaitMs)
      } catch (e) {
        await localSub.close()
        await release()
        throw e
      }
      if (!timely) {
        // Whatever was published before the subscription went live was missed: the listener refetches.
        live.then(() => {
          if (!open) return
          try {
            listener(RESYNC)
          } catch (e) {
            subscriberFailed(e)
          }
        }, outage)
      }
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
      for (const stop of beats) stop()
      subscriber?.disconnect()
      if (owned) publisher.disconnect()
    },
  }
}

/** A promise opened from outside, once. */
function opening() {
  let open!: () => void
  const gate = { done: false, promise: new Promise<void>((resolve) => (open = resolve)), open: () => {} }
  gate.open = () => {
    gate.done = true
    open()
  }
  return gate
}

/** Whether `promise` resolved within `ms`; its rejection within `ms` is passed on. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), ms)
    promise.then(
      () => {
        clearTimeout(timer)
        resolve(true)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}

/**
 * Probes `connection` every `everyMs` while it is ready; a probe not answered within `everyMs` calls
 * `stalled`. The verdict waits one turn of the event loop, so that an answer already received is read
 * first even when the loop was blocked or the process frozen (Lambda between invocations).
 */
function heartbeat(connection: Redis, everyMs: number, probe: () => Promise<unknown>, stalled: () => void): () => void {
  let probes = 0
  /** The probe being waited for, 0 when none: probes never overlap. */
  let awaited = 0
  const interval = setInterval(() => {
    if (awaited !== 0 || connection.status !== 'ready') return
    const id = (awaited = ++probes)
    let answered = false
    const timer = setTimeout(() => setImmediate(() => {
      if (awaited === id) awaited = 0
      if (!answered) stalled()
    }), everyMs)
    timer.unref?.()
    // A failed probe means a closed connection, which reports and resyncs by itself.
    const done = () => {
      answered = true
      clearTimeout(timer)
      if (awaited === id) awaited = 0
    }
    probe().then(done, done)
  }, everyMs)
  interval.unref?.()
  return () => clearInterval(interval)
}
