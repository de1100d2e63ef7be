/**
 * The everything server as an AWS Lambda function with a streaming function URL (template.yaml's
 * function: `sam build` bundles it, `sam deploy` deploys it; `npm run start:lambda` builds it the same way
 * and runs it locally under the real runtime client). With REDIS_URL (or REDIS_CLUSTER_NODES) set, listen streams hear changes made
 * by any instance, input requests complete on whichever instance a retry reaches (MCP_REQUEST_STATE_SECRET,
 * shared by all, signs them), and tasks live in Redis: a task runs on in the invocation that made it, after
 * its response, within the function's timeout, and any instance reads, answers or cancels it.
 * MCP_AUTH_ISSUER and MCP_RESOURCE_URL turn on authorization (examples/everything/auth.ts).
 */
import { createLambdaHandler } from '../../adapters/lambda/index.js'
import { redisBackplane, redisSharedSecret, redisTaskStore } from '../../adapters/redis/index.js'
import { resumable, sessions, tasks } from '../../src/index.js'
import { authFromEnv } from './auth.js'
import { redisFromEnv } from './redis.js'
import { createEverythingServer } from './server.js'

const redis = redisFromEnv(process.env)

export const handler = createLambdaHandler(createEverythingServer(), {
  backplane: redis && redisBackplane(redis),
  store: redis && redisTaskStore(redis),
  // Resumable requests only for clients that declare resumableRequests (the seed draft's proposal).
  extensions: [tasks(), resumable()],
  // A 2025 session is asked mid-call on its stream and answered on another instance: it needs both shared.
  sessions: redis ? sessions() : undefined,
  // MCP_REQUEST_STATE_SECRET when set (the handler reads it); else, with Redis, one kept there for every instance.
  requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET || (redis && redisSharedSecret(redis)) },
  auth: authFromEnv(process.env, undefined),
})
