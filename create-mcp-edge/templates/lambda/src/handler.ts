import { createLambdaHandler } from 'mcp-edge/lambda'
import { redisBackplane } from 'mcp-edge/redis'
import { server } from './server.ts'

// An instance serves one invocation at a time, so a listen stream hears of a change made on another
// instance only through Redis: without REDIS_URL, subscriptions/listen is refused, saying so.
// MCP_REQUEST_STATE_SECRET (template.yaml) lets every instance answer the rounds of a multi-round-trip request.
export const handler = createLambdaHandler(server, {
  backplane: process.env.REDIS_URL ? redisBackplane({ url: process.env.REDIS_URL }) : undefined,
})
