/**
 * Vitest global setup of the node project: the Redis tests need a server. CI starts one and sets REDIS_URL
 * (.ci/run), and then this does nothing. Without REDIS_URL, and with redis-server installed, the run gets a
 * throwaway one on a free port, so `npm test` passes on a machine whose Redis is not running, or runs
 * elsewhere. The test workers are started after this and inherit process.env.
 */
import { hasRedisServer, ownRedis } from '../helpers/redis.js'

export default async function startRedis(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.REDIS_URL) return undefined
  // Nothing to start: the Redis tests then fail to connect to 127.0.0.1:6379, which says what is missing.
  if (!hasRedisServer()) return undefined
  const redis = await ownRedis()
  process.env.REDIS_URL = redis.url
  return async () => {
    delete process.env.REDIS_URL
    await redis.stop()
  }
}
