import { Hono } from 'hono'
import { createFetchHandler, type FetchHandler, type HandlerOptions } from '../../src/http/handler.js'
import type { McpServer } from '../../src/server/server.js'
import { hubBackplane } from './backplane.js'
import { McpHub } from './hub.js'

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
  /** The Worker's fetch handler: `export default worker`. */
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Response | Promise<Response>
  /** The Hono app behind it, to add routes of your own next to the MCP endpoint. */
  readonly app: Hono<{ Bindings: Record<string, unknown> }>
  /**
   * Connects the server to this Worker's bindings. Requests do it themselves; call it in `scheduled`,
   * `queue` or other handlers before `server.notify.*`, so that those changes reach the hubs too.
   */
  bind(env: Record<string, unknown>): void
  /** The hub Durable Object class, for `export const { McpHub } = worker` (the export name is what wrangler.toml binds). */
  readonly McpHub: typeof McpHub
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
      else console.warn(`mcp-edge: no ${secretName} secret; input requests only work while one isolate answers every round`)
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

  const app = new Hono<{ Bindings: Record<string, unknown> }>()
  app.all(options.path ?? '/mcp', (c) => bind(c.env)(c.req.raw, { env: c.env, waitUntil: (p) => c.executionCtx.waitUntil(p) }))
  return { fetch: app.fetch, app, bind: (env) => void bind(env), McpHub }
}
