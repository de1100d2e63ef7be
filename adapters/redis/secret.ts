import { Redis } from 'ioredis'
import type { SecretSource } from '../../src/index.js'

export interface RedisSharedSecretOptions {
  /** `redis://host:port/db`; or pass a `client` to share one. */
  url?: string | undefined
  /** A connection to share (closing the source leaves it open). */
  client?: Redis | undefined
  /** Prepended to the key (default `mcp-edge:`): servers that must not read each other's states use their own. */
  prefix?: string | undefined
}

/**
 * The requestState secret of every instance sharing one Redis, with nothing to configure: the first instance
 * to ask stores 32 random bytes (SET NX, so two starting at once agree on one), and each reads it once.
 * It stays until deleted; deleting it makes the states in flight unreadable, as any change of secret does.
 */
export function redisSharedSecret(options: RedisSharedSecretOptions = {}): SecretSource & { close(): Promise<void> } {
  const owned = !options.client
  const redis = options.client ?? (options.url ? new Redis(options.url) : new Redis())
  const key = `${options.prefix ?? 'mcp-edge:'}request-state-secret`
  const source = async () => {
    const made = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('')
    await redis.set(key, made, 'NX')
    const shared = await redis.get(key)
    if (!shared) throw new Error(`mcp-edge: the requestState secret at ${key} vanished while it was read`)
    return shared
  }
  return Object.assign(source, {
    async close() {
      if (owned) await redis.quit().catch(() => redis.disconnect())
    },
  })
}
