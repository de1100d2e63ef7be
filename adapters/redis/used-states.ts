import type { UsedStates } from '../../src/index.js'
import { connection, type RedisConnectionOptions } from './connection.js'

export type RedisUsedStatesOptions = RedisConnectionOptions

/**
 * Single-use requestStates across every instance sharing one Redis: one SET NX with an absolute expiry per
 * claim, so that two instances given the same state at once serve it once.
 */
export function redisUsedStates(options: RedisUsedStatesOptions = {}): UsedStates & { close(): Promise<void> } {
  const { redis, prefix, close } = connection(options, 'Redis used states')
  return {
    async claim(id, untilMs) {
      return (await redis.set(`${prefix}used-state:${id}`, '1', 'PXAT', Math.max(untilMs, Date.now() + 1), 'NX')) === 'OK'
    },
    close,
  }
}
