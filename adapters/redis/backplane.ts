import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { distinctTopics, parseEvent } from '../../src/core.js'
import { memoryBackplane, RESYNC, type Backplane, type ChangeEvent, type Listener, type LocalFanout, type Subscription } from '../../src/index.js'
import { ownClient, type RedisClient, type RedisConnectionOptions } from './connection.js'
import { logOutage, Outages, redisAddress } from './outage.js'
import { deadlinePublisher } from './publish.js'

export interface RedisBackplaneOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /**
   * Seed nodes of a Redis Cluster, in place of `url`: changes go out by sharded pub/sub (SPUBLISH, Redis 7),
   * each topic's channel on the node of its slot, and this process subscribes on each node it needs.
   */
  cluster?: RedisConnectionOptions['cluster']
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
  admitStream(client: string, stream: string, max: number, untilMs: number): Promise<boolean>
  releaseStream(client: string, stream: string): Promise<void>
  close(): Promise<void>
}

/**
 * One client's open listen streams, over every instance: a sorted set of stream keys scored by when each
 * lapses (an instance that died without releasing its streams frees them then). ARGV: the stream, the most
 * the client may hold, when this one lapses, now (ms). 1 if it may open.
 */
const ADMIT_STREAM = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[4])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2])
return 1`

/** How long a cluster's subscribers stay ready before the streams that lost messages resync. */
const SETTLE_MS = 500

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
 * const running = await serve(server, { backplane, onShutdown: () => backplane.close() })
 * await running.notify.resourceUpdated('news://latest')   // every process's listen streams hear of it
 * ```
 */
export function redisBackplane(options: RedisBackplaneOptions = {}): RedisBackplane {
  return new RedisFanout(options)
}

class RedisFanout implements RedisBackplane {
  readonly kind = 'redis'
  readonly #prefix: string
  readonly #subscribeWaitMs: number
  readonly #heartbeatMs: number
  readonly #publishTimeoutMs: number
  /** The options of every connection; a connection reset after a stall is destroyed at once (a stopped Redis never finishes a polite close). */
  readonly #base: RedisOptions
  readonly #publisher: RedisClient
  /** The seeds of the Redis Cluster it publishes to, if it does. */
  readonly #cluster: RedisConnectionOptions['cluster']
  /** Whether the publisher is this backplane's own, to close with it (else the caller's). */
  readonly #owned: boolean
  readonly #sender: ReturnType<typeof deadlinePublisher>
  readonly #outages: Outages
  readonly #subscriberFailed: (error: unknown) => void
  /** Listeners of this process, by topic: what an event from Redis is delivered to. */
  readonly #local: LocalFanout
  /** Local subscribers per topic: a channel is subscribed while its count is above 0. */
  readonly #counts = new Map<string, number>()
  /** The SUBSCRIBE in flight or done for each topic: later subscribers wait for it too. */
  readonly #ready = new Map<string, Promise<unknown>>()
  readonly #beats: (() => void)[] = []
  #subscriber: RedisClient | undefined
  /** The subscriber lost its connection: on its return every listener gets a resync. */
  #lost = false
  /** Resolved while publishes can go out: the publisher is ready, its clock read, and not stalled. */
  #usable = opening()
  /** What each subscription gives its topics back with: one function for all of them. */
  readonly #releaser = (topics: readonly string[]) => this.#release(topics)

  constructor(options: RedisBackplaneOptions) {
    this.#prefix = options.prefix ?? 'mcp-edge:'
    this.#subscribeWaitMs = options.subscribeWaitMs ?? 2000
    this.#heartbeatMs = options.heartbeatMs ?? 2000
    this.#publishTimeoutMs = options.publishTimeoutMs ?? 1000
    this.#base = { retryStrategy, disconnectTimeout: 100, ...options.redis }
    this.#owned = !options.client
    this.#cluster = options.cluster
    // A publish goes out now or never: nothing waits in an offline queue, nothing is resent after a reconnect.
    const publisher = this.#publisher = options.client ?? ownClient(options, this.#base)
    this.#sender = deadlinePublisher(publisher, publisher instanceof Cluster)
    this.#outages = new Outages(redisAddress(publisher), options.onError ?? logOutage('Redis backplane'))
    this.#subscriberFailed = options.onError ?? ((e: unknown) => console.error('mcp-edge: a listen subscriber failed', e))
    this.#local = memoryBackplane({ onError: this.#subscriberFailed })
    if (this.#owned) publisher.on('error', this.#outages.failed)
    publisher.on('ready', () => {
      this.#outages.up()
      void this.#synced()
    })
    publisher.on('close', () => this.#unusable())
    if (publisher.status === 'ready') {
      this.#outages.up()
      void this.#synced()
    }
    // The publisher's heartbeat reads Redis's clock too, keeping publish deadlines true to it.
    this.#beats.push(heartbeat(publisher, this.#heartbeatMs, () => this.#synced(), () => {
      this.#unusable()
      this.#outages.report(new Error(`Redis did not answer within ${this.#heartbeatMs} ms: publishes fail until it does`))
      if (this.#owned) publisher.disconnect(true)
    }))
  }

  get channels(): number {
    return this.#counts.size
  }

  async publish(event: ChangeEvent): Promise<void> {
    // One deadline covers waiting for a connection and Redis accepting the publish.
    const deadline = Date.now() + this.#publishTimeoutMs
    await this.#reachable('the change was not published')
    await this.#sender.publish(this.#prefix + event.topic, JSON.stringify(event), deadline)
  }

  async subscribe(topics: readonly string[], listener: Listener): Promise<Subscription> {
    const unique = distinctTopics(topics)
    for (const t of unique) {
      const n = (this.#counts.get(t) ?? 0) + 1
      this.#counts.set(t, n)
      if (n === 1) this.#ready.set(t, this.#connect().subscribe(this.#prefix + t))
    }
    const localSub = await this.#local.subscribe(unique, listener)
    const live = Promise.all(unique.map((t) => this.#ready.get(t)))
    let timely: boolean
    try {
      timely = await within(live, this.#subscribeWaitMs)
    } catch (e) {
      await localSub.close()
      await this.#release(unique)
      throw e
    }
    const subscription = new RedisSubscription(localSub, unique, this.#releaser)
    if (!timely) {
      // Whatever was published before the subscription went live was missed: the listener refetches.
      live.then(() => {
        if (!subscription.open) return
        try {
          listener(RESYNC)
        } catch (e) {
          this.#subscriberFailed(e)
        }
      }, (e: unknown) => this.#outages.report(e))
    }
    return subscription
  }

  async admitStream(client: string, stream: string, max: number, untilMs: number): Promise<boolean> {
    await this.#reachable('the listen stream is counted by this instance alone')
    return await this.#publisher.eval(ADMIT_STREAM, 1, this.#streamsOf(client), stream, max, untilMs, Date.now()) === 1
  }

  async releaseStream(client: string, stream: string): Promise<void> {
    await this.#publisher.zrem(this.#streamsOf(client), stream)
  }

  /** Waits, within the publish timeout, for a publisher that can be used; else fails, saying `otherwise`. */
  async #reachable(otherwise: string): Promise<void> {
    if (!this.#usable.done && !(await within(this.#usable.promise, this.#publishTimeoutMs))) {
      throw new Error(`Redis was not reachable within ${this.#publishTimeoutMs} ms; ${otherwise}`)
    }
  }

  /** One key per client, so that a cluster keeps each client's count in one slot. */
  #streamsOf(client: string): string {
    return `${this.#prefix}listen-streams:${client}`
  }

  async close(): Promise<void> {
    for (const stop of this.#beats) stop()
    this.#subscriber?.disconnect()
    if (this.#owned) this.#publisher.disconnect()
  }

  /**
   * The subscriber connection, made on the first subscription; one per process multiplexes every topic (on a
   * cluster, one per node that serves a subscribed channel's slot).
   */
  #connect(): { subscribe(channel: string): Promise<unknown> } {
    if (this.#subscriber) return this.#subscription(this.#subscriber)
    const s = this.#cluster ? this.#shardSubscriber(this.#cluster) : this.#plainSubscriber(this.#publisher as Redis)
    const deliver = (channel: Buffer, message: Buffer) => {
      const event = parseEvent(message.toString('utf8'))
      // An event is delivered only on its own channel: a message that names another topic is foreign.
      if (event && this.#prefix + event.topic === channel.toString('utf8')) this.#local.deliver(event)
    }
    s.on(this.#cluster ? 'smessageBuffer' : 'messageBuffer', deliver)
    return this.#subscription(this.#subscriber = s)
  }

  #subscription(s: RedisClient): { subscribe(channel: string): Promise<unknown> } {
    return { subscribe: (channel) => (this.#cluster ? s.ssubscribe(channel) : s.subscribe(channel)) }
  }

  /** Subscriptions wait out an outage, however long; autoResubscribe restores them on reconnect. */
  #plainSubscriber(publisher: Redis): Redis {
    const s = publisher.duplicate({
      ...this.#base, commandTimeout: undefined, maxRetriesPerRequest: null, autoResubscribe: true, enableOfflineQueue: true,
    })
    s.on('error', this.#outages.failed)
    s.on('close', () => {
      this.#lost = true
    })
    s.on('ready', () => this.#back())
    this.#beats.push(heartbeat(s, this.#heartbeatMs, () => s.ping(), () => {
      this.#outages.report(new Error(`Redis did not answer a PING within ${this.#heartbeatMs} ms: reconnecting`))
      s.disconnect(true)
    }))
    return s
  }

  /**
   * ioredis subscribes again wherever the slots now live after each change of the cluster (a master died, a
   * slot moved) and says so (subscribersReady); what was published meanwhile is lost: every local
   * subscriber resyncs then. Until a replica takes over, it retries the dead node over and over, ready again
   * each time: one resync once that has settled, not one per attempt. The first readiness is the start.
   */
  #shardSubscriber(seeds: NonNullable<RedisConnectionOptions['cluster']>): Cluster {
    const s = ownClient({ cluster: seeds }, { ...this.#base, maxRetriesPerRequest: null, enableOfflineQueue: true }, { shardedSubscribers: true }) as Cluster
    s.on('error', this.#outages.failed)
    s.on('nodeError', this.#outages.failed)
    let started = false
    let settling: ReturnType<typeof setTimeout> | undefined
    s.on('subscribersReady', () => {
      this.#lost ||= started
      started = true
      clearTimeout(settling)
      settling = setTimeout(() => this.#back(), SETTLE_MS)
    })
    this.#beats.push(() => clearTimeout(settling))
    return s
  }

  /** The subscriptions are live again: after a loss, every local subscriber refetches. */
  #back(): void {
    this.#outages.up()
    if (!this.#lost) return
    this.#lost = false
    this.#local.resync()
  }

  /** One subscriber fewer on each topic; a topic's last leaves its channel. */
  async #release(topics: readonly string[]): Promise<void> {
    const removed = topics.filter((t) => {
      const n = this.#counts.get(t)! - 1
      if (n > 0) this.#counts.set(t, n)
      else {
        this.#counts.delete(t)
        this.#ready.delete(t)
      }
      return n === 0
    })
    const channels = removed.map((t) => this.#prefix + t)
    const subscriber = this.#subscriber
    if (channels.length === 0 || !subscriber) return
    // Sharded channels leave one slot at a time.
    const left = this.#cluster ? Promise.all(channels.map((c) => subscriber.sunsubscribe(c))) : subscriber.unsubscribe(...channels)
    await left.catch(() => {
      // Fails only while disconnected, an outage already reported; the channel is dropped on reconnect.
    })
  }

  #unusable(): void {
    if (this.#usable.done) this.#usable = opening()
  }

  /** Reads Redis's clock; publishes may go out once it is read. */
  #synced(): Promise<void> {
    return this.#sender.sync().then(() => this.#usable.open(), (e: unknown) => this.#outages.report(e))
  }
}

/**
 * One subscription of this process: an object rather than a closure over subscribe's scope, since a
 * process holds one for each open listen stream, for hours.
 */
class RedisSubscription implements Subscription {
  #open = true

  constructor(
    private readonly local: Subscription,
    private readonly topics: readonly string[],
    private readonly release: (topics: readonly string[]) => Promise<void>,
  ) {}

  get open(): boolean {
    return this.#open
  }

  async close(): Promise<void> {
    if (!this.#open) return
    this.#open = false
    await this.local.close()
    await this.release(this.topics)
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
function heartbeat(connection: RedisClient, everyMs: number, probe: () => Promise<unknown>, stalled: () => void): () => void {
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
