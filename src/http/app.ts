import { Hono } from 'hono/tiny'
import type { McpServer } from '../server/server.js'
import { createFetchHandler, type FetchHandler, type HandlerOptions } from './handler.js'

/**
 * A Hono app serving the MCP endpoint at `path` (default `/mcp`), and with `auth` its protected-resource
 * metadata; mount it in a larger app with `app.route('/', ...)`. `close` ends its listen streams
 * gracefully; `notify` reaches them on every instance.
 */
export function createApp(server: McpServer, options: HandlerOptions & { path?: string | undefined } = {}): Hono & Pick<FetchHandler, 'close' | 'notify'> {
  const handler = createFetchHandler(server, options)
  const app = new Hono()
  for (const path of [options.path ?? '/mcp', ...handler.metadataPaths]) app.all(path, (c) => handler(c.req.raw, { env: c.env }))
  return Object.assign(app, { close: handler.close, notify: handler.notify })
}
