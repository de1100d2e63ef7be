import { createFetchHandler, type FetchHandler, type HandlerOptions, type McpServer, type Notify } from '../../src/index.js'
import { hubBackplane } from './backplane.js'
import type { McpHub } from './hub.js'

export interface WorkerOptions extends HandlerOptions {
  /** Endpoint path (default `/mcp`). */
  path?: string | undefined
  /** Binding name of the McpHub Durable Object namespace (default `MCP_HUB`); without it, fan-out stays in the isolate. */
  hubBinding?: string | undefined
  /** Hubs to spread listen topics over (default 4). */
  shards?: number | undefined
  /** Binding name of the requestState secret (default `MCP_REQUEST_STATE_SECRET`; set it with `wrangler secret put`). */
  secretBinding?: string | undefined
  // allowedHosts / allowedOrigins default to the comma-separated vars MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS.
}

/** What the Workers runtime passes as the third argument of fetch: only waitUntil is used. */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void
}

export interface McpWorker<Env> {
  /**
   * The Worker's fetch handler: `export default worker`. It answers the MCP endpoint and 404 elsewhere; to
   * serve routes of your own beside it, mount it in a Hono app (see the README).
   */
  fetch(request: Request, env: Env, ctx: WaitUntil): Promise<Response>
  /**
   * Change notification from outside a request (`scheduled`, `queue`, a webhook route): it reaches the
   * listen streams of every isolate through the hubs.
   */
  notify(env: Env): Notify
}

const list = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.split(',').map((v) => v.trim()) : undefined)

/**
 * Serves an McpServer as a Cloudflare Worker. Listen streams stay in the Worker (billed for CPU, not for
 * waiting); changes fan out through McpHub Durable Objects, which hibernate between events. Export the hub
 * class from the Worker module under the name wrangler.toml binds: `export { McpHub } from 'mcp-edge/cloudflare'`.
 * `Env` is your bindings' type (what `wrangler types` generates); the server definition is never changed.
 */
export function createWorker<Env extends object = Record<string, unknown>>(server: McpServer, options: WorkerOptions = {}): McpWorker<Env> {
  const hubName = options.hubBinding ?? 'MCP_HUB'
  const secretName = options.secretBinding ?? 'MCP_REQUEST_STATE_SECRET'
  // Bindings exist only once a request (or event) brings them: one handler per env, made on first use.
  const handlers = new WeakMap<object, FetchHandler>()
  const { onError } = options
  const backplaneError = onError && ((e: unknown) => onError(e, { during: 'backplane' }))

  const handlerFor = (env: Env): FetchHandler => {
    let handler = handlers.get(env)
    if (handler) return handler
    const bindings = env as Record<string, unknown>
    const secret = options.requestState?.secret ?? (typeof bindings[secretName] === 'string' && bindings[secretName] !== '' ? bindings[secretName] : undefined)
    if (secret === undefined) console.warn(`mcp-edge: no ${secretName}: input requests work only while one isolate answers every round`)
    const namespace = bindings[hubName] as DurableObjectNamespace<McpHub> | undefined
    handler = createFetchHandler(server, {
      ...options,
      backplane: options.backplane ?? (namespace ? hubBackplane({ namespace: () => namespace, shards: options.shards, onError: backplaneError }) : undefined),
      requestState: { ...options.requestState, secret },
      // Cloudflare routes by hostname, so a deployed Worker needs no Host check; `wrangler dev` listens on
      // loopback like any local server and does (npm run dev sets MCP_ALLOWED_HOSTS for it).
      allowedHosts: options.allowedHosts ?? list(bindings.MCP_ALLOWED_HOSTS) ?? '*',
      allowedOrigins: options.allowedOrigins ?? list(bindings.MCP_ALLOWED_ORIGINS),
    })
    handlers.set(env, handler)
    return handler
  }

  const path = options.path ?? '/mcp'
  return {
    // No router here: a Worker pays for every byte it ships (cold start), and one path needs none.
    async fetch(request, env, ctx) {
      if (new URL(request.url).pathname !== path) return new Response('Not Found', { status: 404 })
      return handlerFor(env)(request, { env, waitUntil: (p) => ctx.waitUntil(p) })
    },
    notify: (env) => handlerFor(env).notify,
  }
}
