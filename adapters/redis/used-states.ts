import { Redis } from 'ioredis'
import type { UsedStates } from '../../src/index.js'

export interface RedisUsedStatesOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /** A connection to share (closing the store leaves it open). */
  client?: Redis | undefined
  /** Prepended to every key (default `mcp-edge:`). */
  prefix?: string | undefined
}

/**
 * Single-use requestStates across every instance sharing one Redis: one SET NX with an absolute expiry per
 * claim, so that two instances given the same state at once serve it once.
 */
export function redisUsedStates(options: RedisUsedStatesOptions = {}): UsedStates & { close(): Promise<void> } {
  const owned = !options.client
  const redis = options.client ?? (options.url ? new Redis(options.url) : new Redis())
  const prefix = `${options.prefix ?? 'mcp-edge:'}used-state:`
  return {
    async claim(id, untilMs) {
      return (await redis.set(`${prefix}${id}`, '1', 'PXAT', Math.max(untilMs, Date.now() + 1), 'NX')) === 'OK'
    },
    async close() {
      if (owned) await redis.quit().catch(() => redis.disconnect())
    },
  }
}
