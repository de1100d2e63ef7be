import { Redis } from 'ioredis'
import { logOutage, reportOutages } from './outage.js'

/** Where a Redis store finds its connection and keys. */
export interface RedisConnectionOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /** A connection to share (closing the store leaves it open, and its errors to whoever made it). */
  client?: Redis | undefined
  /** Prepended to every key, so several servers can share one Redis (default `mcp-edge:`). */
  prefix?: string | undefined
  /**
   * Told when its own connection cannot reach Redis or loses it, once per outage (it reconnects by itself;
   * meanwhile the store's operations fail). Default: one line on stderr, the password left out.
   */
  onError?: ((error: unknown) => void) | undefined
}

/** A store's connection: its own (closed with the store) or the one it was given (left open). `subject` names the store in messages. */
export function connection(options: RedisConnectionOptions, subject: string): { redis: Redis; prefix: string; close(): Promise<void> } {
  const owned = !options.client
  const redis = options.client ?? (options.url ? new Redis(options.url) : new Redis())
  if (owned) reportOutages(redis, options.onError ?? logOutage(subject))
  return {
    redis,
    prefix: options.prefix ?? 'mcp-edge:',
    async close() {
      if (!owned) return
      // QUIT lets writes in flight finish; a connection that is not up has nothing to finish.
      if (redis.status === 'ready') await redis.quit()
      else redis.disconnect()
    },
  }
}
