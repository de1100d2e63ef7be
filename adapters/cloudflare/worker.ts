import { createFetchHandler, type FetchHandler, type HandlerOptions } from '../../src/http/handler.js'
import type { McpServer } from '../../src/server/server.js'
import { hubBackplane } from './backplane.js'
import type { McpHub } from './hub.js'

export interface WorkerOptions extends HandlerOptions {
  /** Endpoint path (default `/mcp`). */
  path?: string
  /** Binding name of the McpHub Durable Object namespace (default `MCP_HUB`). */
  hubBinding?: string
  /** Hubs to spread listen topics over (default 4). */
  shards?: number
  /** Binding name of the requestState secret (default `MCP_REQUEST_STATE_SECRET`; set it with `wrangler secret put`). */
  secretBinding?: string
  // allowedHosts / allowedOrigins default to the comma-separated vars MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS.
}

export interface McpWorker {
  /**
   * The Worker's fetch handler: `export default worker`. It answers the MCP endpoint and 404 elsewhere; to
   * serve routes of your own beside it, mount it in a Hono app (see the README).
   */
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Promise<Response>
  /**
   * Connects the server to this Worker's bindings. Requests do it themselves; call it in `scheduled`,
   * `queue` or other handlers before `server.notify.*`, so that those changes reach the hubs too.
   */
  bind(env: Record<string, unknown>): void
}

const list = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.split(',').map((v) => v.trim()) : undefined)

/**
 * Serves an McpServer as a Cloudflare Worker. Listen streams stay in the Worker (billed for CPU, not for
 * waiting); changes fan out through McpHub Durable Objects, which hibernate between events. Export the hub
 * class from the Worker module under the name wrangler.toml binds: `export { McpHub } from 'mcp-edge/cloudflare'`.
 */
export function createWorker(server: McpServer, options: WorkerOptions = {}): McpWorker {
  const hubName = options.hubBinding ?? 'MCP_HUB'
  const secretName = options.secretBinding ?? 'MCP_REQUEST_STATE_SECRET'
  let handler: FetchHandler | undefined

  const bind = (env: Record<string, unknown>): FetchHandler => {
    if (handler) return handler
    const secret = env[secretName]
    if (!server.hasRequestStateSecret) {
      if (typeof secret === 'string' && secret !== '') server.useRequestStateSecret(secret)
      else console.warn(`mcp-edge: no ${secretName}: input requests work only while one isolate answers every round`)
    }
    const namespace = env[hubName] as DurableObjectNamespace<McpHub> | undefined
    if (namespace && !server.options.backplane) server.useBackplane(hubBackplane({ namespace: () => namespace, shards: options.shards }))
    // Cloudflare routes by hostname, so a deployed Worker needs no Host check; `wrangler dev` listens on
    // loopback like any local server and does (npm run dev sets MCP_ALLOWED_HOSTS for it).
    return (handler = createFetchHandler(server, {
      ...options,
      allowedHosts: options.allowedHosts ?? list(env.MCP_ALLOWED_HOSTS) ?? '*',
      allowedOrigins: options.allowedOrigins ?? list(env.MCP_ALLOWED_ORIGINS),
    }))
  }

  const path = options.path ?? '/mcp'
  // No router here: a Worker pays for every byte it ships (cold start), and one path needs none.
  const fetch = async (request: Request, env: Record<string, unknown>, ctx: ExecutionContext) => {
    if (new URL(request.url).pathname !== path) return new Response('Not Found', { status: 404 })
    return bind(env)(request, { env, waitUntil: (p) => ctx.waitUntil(p) })
  }
  return { fetch, bind: (env) => void bind(env) }
}
