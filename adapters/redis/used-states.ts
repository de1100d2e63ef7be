import type { UsedStates } from '../../src/index.js'
import { connection, type RedisConnectionOptions } from './connection.js'

export type RedisUsedStatesOptions = RedisConnectionOptions

/**
 * Single-use requestStates across every instance sharing one Redis: one SET NX with an absolute expiry per
 * claim, so that two instances given the same state at once serve it once.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 * import { redisUsedStates } from 'mcp-edge/redis'
 *
 * const server = new McpServer({ name: 'payments', version: '1.0.0' })
 *   .tool('pay', { description: 'Pays once the user confirms' }, async (_args, ctx) => {
 *     const answer = await ctx.elicit('confirm', { message: 'Pay 10 EUR?', requestedSchema: { type: 'object', properties: {} } })
 *     return answer.action === 'accept' ? 'Paid' : 'Not paid'
 *   })
 *
 * // A confirmation is taken once, by whichever process sees it first: a replay is refused.
 * await serve(server, {
 *   requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET, singleUse: redisUsedStates({ url: process.env.REDIS_URL }) },
 * })
 * ```
 */
export function redisUsedStates(options: RedisUsedStatesOptions = {}): UsedStates & { close(): Promise<void> } {
  const { redis, prefix, command, close } = connection(options, 'Redis used states')
  return {
    async claim(id, untilMs) {
      const set = () => redis.set(`${prefix}used-state:${id}`, '1', 'PXAT', Math.max(untilMs, Date.now() + 1), 'NX')
      return (await command('claiming a requestState', set)) === 'OK'
    },
    close,
  }
}
