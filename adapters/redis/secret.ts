import type { SecretSource } from '../../src/index.js'
import { connection, type RedisConnectionOptions } from './connection.js'

/** `prefix`: servers that must not read each other's states use their own. */
export type RedisSharedSecretOptions = RedisConnectionOptions

/**
 * The requestState secret of every instance sharing one Redis, with nothing to configure: the first instance
 * to ask stores 32 random bytes (SET NX, so two starting at once agree on one), and each reads it once.
 * It stays until deleted; deleting it makes the states in flight unreadable, as any change of secret does.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 * import { redisSharedSecret } from 'mcp-edge/redis'
 *
 * const server = new McpServer({ name: 'orders', version: '1.0.0' })
 *   .tool('cancel_order', { description: 'Asks first' }, async (_args, ctx) => {
 *     const answer = await ctx.elicit('sure', { message: 'Cancel it?', requestedSchema: { type: 'object', properties: {} } })
 *     return answer.action === 'accept' ? 'Cancelled' : 'Kept'
 *   })
 *
 * // Every process sharing the Redis seals and opens requestStates with one key, and nobody configures it.
 * await serve(server, { requestState: { secret: redisSharedSecret({ url: process.env.REDIS_URL }) } })
 * ```
 */
export function redisSharedSecret(options: RedisSharedSecretOptions = {}): SecretSource & { close(): Promise<void> } {
  const { redis, prefix, command, close } = connection(options, 'Redis shared secret')
  const key = `${prefix}request-state-secret`
  const source = async () => {
    const made = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('')
    await command('storing the requestState secret', () => redis.set(key, made, 'NX'))
    const shared = await command('reading the requestState secret', () => redis.get(key))
    if (!shared) throw new Error(`mcp-edge: the requestState secret at ${key} vanished while it was read`)
    return shared
  }
  return Object.assign(source, { close })
}
