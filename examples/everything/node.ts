/**
 * `npm start`: the everything server on Node at http://127.0.0.1:3000/mcp (PORT and HOST override).
 * With REDIS_URL (or REDIS_CLUSTER_NODES, seed nodes of a Redis Cluster) set, listen streams fan out across every process sharing that Redis, and tasks live in it,
 * so any process can read, answer or cancel a task another one created (REDIS_PREFIX keeps servers sharing
 * one Redis apart). MCP_TASK_LEASE_MS sets how long a task runner's lease lasts unless renewed (default
 * 30 s): a task whose process dies fails that long after, when it is next read. MCP_AUTH_ISSUER turns on
 * authorization (examples/everything/auth.ts); MCP_RESOURCE_URL then defaults to http://127.0.0.1:$PORT/mcp.
 * Behind a reverse proxy, MCP_CLIENT_ADDRESS_HEADER names the header it sets to the client's address.
 * OTEL_EXPORTER_OTLP_ENDPOINT exports spans and metrics over OTLP (examples/everything/otel.ts).
 */
import { serve } from '../../adapters/node/index.js'
import { redisBackplane, redisSharedSecret, redisTaskStore } from '../../adapters/redis/index.js'
import { resumable, tasks } from '../../src/index.js'
import { authFromEnv } from './auth.js'
import { redisFromEnv } from './redis.js'
import { otelFromEnv } from './otel.js'
import { createEverythingServer } from './server.js'

// Before anything is served, so that the first request is traced.
const otel = await otelFromEnv(process.env)

const redis = redisFromEnv(process.env)
const backplane = redis ? redisBackplane(redis) : undefined
const store = redis ? redisTaskStore(redis) : undefined
// Without MCP_REQUEST_STATE_SECRET, processes sharing a Redis share a secret kept in it.
const sharedSecret = redis && !process.env.MCP_REQUEST_STATE_SECRET ? redisSharedSecret(redis) : undefined
const leaseMs = process.env.MCP_TASK_LEASE_MS ? Number(process.env.MCP_TASK_LEASE_MS) : undefined
const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
const auth = authFromEnv(process.env, `http://${host}:${port}/mcp`)
// serve() says where it listens and with what (auth on or off); whose tokens is this example's own to say.
if (auth) console.error(`mcp-edge: tokens of ${process.env.MCP_AUTH_ISSUER} for ${auth.resource}`)
await serve(createEverythingServer(), {
  port,
  host,
  auth,
  backplane,
  store,
  // Resumable requests only for clients that declare resumableRequests (the seed draft's proposal).
  extensions: [tasks({ leaseMs }), resumable()],
  requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET || sharedSecret },
  clientAddressHeader: process.env.MCP_CLIENT_ADDRESS_HEADER || undefined,
  // Once the server has closed, whose shutdown still writes to the store (tasks left at the end of the
  // grace period fail), and before the process exits: SIGTERM waits for it.
  onShutdown: async () => {
    await Promise.all([backplane?.close(), store?.close(), sharedSecret?.close()])
    // Exports what is still buffered: the spans of the last requests and tasks.
    await otel?.shutdown()
  },
})
