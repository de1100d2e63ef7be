/**
 * `npm start`: the everything server on Node at http://127.0.0.1:3000/mcp (PORT and HOST override).
 * With REDIS_URL set, listen streams fan out across every process sharing that Redis.
 */
import { serve } from '../../adapters/node/index.js'
import { redisBackplane } from '../../adapters/redis/index.js'
import { createEverythingServer } from './server.js'

const backplane = process.env.REDIS_URL ? redisBackplane({ url: process.env.REDIS_URL, prefix: process.env.REDIS_PREFIX }) : undefined
const running = await serve(createEverythingServer(), {
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  backplane,
  requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET },
})
running.http.once('close', () => void backplane?.close())
console.error(`mcp-edge everything server listening on ${running.url}${backplane ? ' (Redis backplane)' : ''}`)
