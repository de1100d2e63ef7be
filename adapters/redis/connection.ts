import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis'
import { logOutage, redisAddress, reportOutages } from './outage.js'

/** A connection to one Redis, or to a Redis Cluster. */
export type RedisClient = Redis | Cluster

/** Where a Redis store finds its connection and keys. */
export interface RedisConnectionOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /**
   * Seed nodes of a Redis Cluster (`host:port`, or `{ host, port }`; any few, the rest are found), in place of
   * `url`: every record's keys share a hash tag, so each operation runs on one slot.
   */
  cluster?: readonly (string | { host: string; port: number })[] | undefined
  /** A connection to share (closing the store leaves it open, and its errors to whoever made it). */
  client?: RedisClient | undefined
  /** Prepended to every key, so several servers can share one Redis (default `mcp-edge:`). */
  prefix?: string | undefined
  /**
   * Told when its own connection cannot reach Redis or loses it, once per outage (it reconnects by itself;
   * meanwhile the store's operations fail). Default: one line on stderr, the password left out.
   */
  onError?: ((error: unknown) => void) | undefined
  /**
   * How long each command has, waiting for a connection included (default 2000 ms). Later than that, the
   * operation fails, and with it the request that waits on it, instead of hanging while Redis is stalled or away.
   */
  commandTimeoutMs?: number | undefined
}

/** As the backplane's heartbeat: far under a client's patience, far over a round trip to a healthy Redis. */
export const COMMAND_TIMEOUT_MS = 2000

/**
 * An own connection sends a command only while connected, and once: none waits in an offline queue or is
 * resent after a reconnect, so none runs long after its caller was told it failed (as the backplane's publisher).
 */
const OWN: RedisOptions = { enableOfflineQueue: false, autoResendUnfulfilledCommands: false }

/** A store's connection, whose commands go through `command`. */
export interface Connection {
  redis: RedisClient
  prefix: string
  /**
   * `send`'s reply, or a rejection naming `what` once `commandTimeoutMs` passed: an own connection that is not
   * up is waited for within it, and the command then sent, unless the caller was already told it failed.
   */
  command<T>(what: string, send: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** A store's connection: its own (closed with the store) or the one it was given (left open). `subject` names the store in messages. */
export function connection(options: RedisConnectionOptions, subject: string): Connection {
  const owned = !options.client
  const redis = options.client ?? ownClient(options)
  const timeoutMs = options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS
  const where = redisAddress(redis)
  const outages = owned ? reportOutages(redis, options.onError ?? logOutage(subject)) : undefined
  /** Opens when the own connection is next ready; one listener however many commands wait. */
  let connected: Promise<void> | undefined
  const ready = () => (connected ??= new Promise<void>((resolve) => redis.once('ready', () => {
    connected = undefined
    resolve()
  })))
  return {
    redis,
    prefix: options.prefix ?? 'mcp-edge:',
    command<T>(what: string, send: () => Promise<T>) {
      return new Promise<T>((resolve, reject) => {
        let settled = false
        // Not up (connecting or reconnecting): the command waits for the connection, within the same deadline.
        const waiting = owned && redis.status !== 'ready' && redis.status !== 'end'
        const settle = (error: Error | undefined, value?: T) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          if (error) reject(error)
          else resolve(value as T)
        }
        // setImmediate: a reply already in the socket is read first, even when the event loop was blocked.
        const timer = setTimeout(() => setImmediate(() => {
          if (settled) return
          const late = new Error(waiting && redis.status !== 'ready'
            ? `${subject}: could not reach ${where} within ${timeoutMs} ms; ${what} failed`
            : `${subject}: ${where} did not answer within ${timeoutMs} ms; ${what} failed`)
          // A stall closes no connection, so nothing else would say it: once per outage, as a lost connection.
          outages?.report(late)
          settle(late)
        }), timeoutMs)
        const sent = waiting ? ready().then(() => (settled ? undefined as T : send())) : send()
        sent.then(
          (value) => {
            if (!settled) outages?.up()
            settle(undefined, value)
          },
          (e: unknown) => settle(e instanceof Error ? e : new Error(String(e))),
        )
      })
    },
    async close() {
      if (!owned) return
      // QUIT lets writes in flight finish; a connection that is not up has nothing to finish.
      if (redis.status === 'ready') await redis.quit()
      else redis.disconnect()
    },
  }
}

/** A connection of the store's own: to the cluster its seeds name, else to `url` (default localhost). */
export function ownClient(options: Pick<RedisConnectionOptions, 'url' | 'cluster'>, extra: RedisOptions = {}, clusterOptions: ClusterOptions = {}): RedisClient {
  const own = { ...OWN, ...extra }
  if (options.cluster) {
    const seeds = options.cluster.map((node) => (typeof node === 'string' ? seed(node) : node))
    // The cluster's own queue follows its nodes': none for commands, one for a subscriber's.
    return new Cluster(seeds, { enableOfflineQueue: own.enableOfflineQueue ?? false, ...clusterOptions, redisOptions: own as never })
  }
  // ioredis's constructor types refuse its own RedisOptions under exactOptionalPropertyTypes (replyMapping).
  return options.url ? new Redis(options.url, own as never) : new Redis(own as never)
}

/** `host:port` (IPv6 in brackets) as a cluster seed. */
function seed(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':')
  const port = Number(node.slice(at + 1))
  if (at < 0 || !Number.isInteger(port)) throw new Error(`a Redis Cluster node is host:port, not ${JSON.stringify(node)}`)
  return { host: node.slice(0, at).replace(/^\[|\]$/g, ''), port }
}
