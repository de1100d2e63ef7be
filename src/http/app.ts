import { Hono } from 'hono/tiny'
import type { McpServer } from '../server/server.js'
import { createFetchHandler, type FetchHandler, type HandlerOptions, type RuntimeContext } from './handler.js'

export interface AppOptions extends HandlerOptions {
  /** Where the endpoint is (default `/mcp`). */
  path?: string | undefined
  /** What the runtime passes to each request, made from the app's env (default: `{ env }`). */
  platform?: ((env: unknown) => RuntimeContext) | undefined
}

/**
 * A Hono app serving the MCP endpoint at `path` (default `/mcp`), and with `auth` its protected-resource
 * metadata; mount it in a larger app with `app.route('/', ...)`. `close` ends its listen streams
 * gracefully; `notify` reaches them on every instance.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono'
 * import { createApp, McpServer } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'hello', version: '1.0.0' })
 *   .tool('hello', { description: 'Says hello' }, () => 'Hello')
 *
 * const app = new Hono()
 * app.get('/', (c) => c.text('home'))
 * app.route('/', createApp(server))   // POST /mcp
 * export default app
 * ```
 */
export function createApp(server: McpServer, options: AppOptions = {}): Hono & Pick<FetchHandler, 'close' | 'abort' | 'notify' | 'summary'> {
  const handler = createFetchHandler(server, options)
  const app = new Hono()
  const platform = options.platform ?? ((env) => ({ env }))
  const paths = [options.path ?? '/mcp', ...handler.metadataPaths, ...(options.healthPath ? [options.healthPath] : [])]
  for (const path of paths) app.all(path, (c) => handler(c.req.raw, platform(c.env)))
  return Object.assign(app, { close: handler.close, abort: handler.abort, notify: handler.notify, summary: handler.summary })
}
