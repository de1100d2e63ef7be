import { createAdaptorServer, type HttpBindings } from '@hono/node-server'
import { getPath } from 'hono/utils/url'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { createFetchHandler, LOOPBACK_HOSTS, sessions, type HandlerOptions, type HandlerSummary, type McpServer, type Notify, type SessionPlan } from '../../src/index.js'
import { nodePlatform } from './sse.js'
import { defaultTelemetry } from './telemetry.js'

export interface ServeOptions extends Omit<HandlerOptions, 'sessions'> {
  /**
   * Sessions for 2025 clients (HandlerOptions.sessions): on by default here, kept in `store` (this process's
   * memory without one); `sessions({...})` sets their limits, `false` serves 2025 clients without them.
   */
  sessions?: SessionPlan | false | undefined
  /** Default 3000; 0 picks a free port. */
  port?: number | undefined
  /** Default 127.0.0.1. Binding elsewhere makes the server reachable from other machines: set allowedHosts too. */
  host?: string | undefined
  /** Endpoint path (default /mcp). */
  path?: string | undefined
  /** Stop gracefully on SIGTERM and SIGINT (default true). */
  handleSignals?: boolean | undefined
  /** How long in-flight requests may run on after a stop begins (default 10 s). */
  shutdownGraceMs?: number | undefined
  /**
   * How long a client has to send a whole request, headers and body (default 30 s); a slower one gets 408
   * and its socket is closed. Responses, listen streams included, are not limited by it.
   */
  requestTimeoutMs?: number | undefined
  /** How long a client has to send the request headers (default 10 s; at most requestTimeoutMs). */
  headersTimeoutMs?: number | undefined
  /** Connections open at once (default 16,384, above the 10,000 listen streams a handler holds); more are closed unanswered. */
  maxConnections?: number | undefined
  /**
   * Where serve's own lines go: the start-up line (address, versions, backplane, auth, tasks store), the
   * warning about a non-loopback host and the shutdown notice. Default: stderr, one line each, so that stdout
   * stays the program's; `false` for none. Errors go to `onError` whatever this says.
   */
  log?: ((line: string) => void) | false | undefined
}

export interface RunningServer {
  readonly url: string
  readonly port: number
  readonly http: Server
  /** Tells listen streams on every instance sharing the backplane that something changed. */
  readonly notify: Notify
  /** Stops accepting, lets in-flight requests finish within the grace period, then closes what remains. */
  close(): Promise<void>
}

/**
 * Serves one McpServer over node:http. Resolves once listening.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * const running = await serve(server, { port: 3000, healthPath: '/healthz' })
 * // stderr: mcp-edge: listening on http://127.0.0.1:3000/mcp | versions ... | backplane memory | auth off | ...
 * await running.notify.toolsChanged()   // tells listen streams; SIGTERM or running.close() stops gracefully
 * ```
 */
export async function serve(server: McpServer, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  const log = options.log === false ? () => {} : (options.log ?? ((line: string) => console.error(line)))
  if (!options.allowedHosts && ![...LOOPBACK_HOSTS, '::1'].includes(host)) {
    log(`mcp-edge: listening on ${host}, but only loopback Host headers are accepted until allowedHosts names this server's hostnames`)
  }
  const app = createFetchHandler(server, { telemetry: defaultTelemetry, ...options, sessions: options.sessions === false ? undefined : (options.sessions ?? sessions()) })
  const path = options.path ?? '/mcp'
  // The endpoint and its side paths matched without a router (Hono's own path reading): a router's context
  // for each request costs more than the search.
  const paths = new Set([path, ...app.metadataPaths, ...(options.healthPath ? [options.healthPath] : [])])
  const requestTimeout = options.requestTimeoutMs ?? 30_000
  const http = createAdaptorServer({
    fetch: (request, env) => (paths.has(getPath(request)) ? app(request, nodePlatform(env as HttpBindings)) : notFound()),
    hostname: host,
    // Node checks those timeouts only this often (default every 30 s): a slow body would hold on for that long.
    serverOptions: { requestTimeout, headersTimeout: Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout), connectionsCheckingInterval: 1000 },
  }) as Server
  http.maxConnections = options.maxConnections ?? 16_384

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 3000, host, () => {
      http.off('error', reject)
      resolve()
    })
  })
  const { port } = http.address() as AddressInfo
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`
  log(startLine(url, app.summary))

  let closing: Promise<void> | undefined
  const close = () => (closing ??= app.close().then(() => shutdown(http, options.shutdownGraceMs ?? 10_000, app.abort)))

  if (options.handleSignals ?? true) {
    const onSignal = (signal: NodeJS.Signals) => {
      log(`mcp-edge: ${signal}, shutting down`)
      close().then(() => process.exit(0))
    }
    process.once('SIGTERM', onSignal)
    process.once('SIGINT', onSignal)
    http.once('close', () => {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
    })
  }
  return { url, port, http, close, notify: app.notify }
}

const notFound = () => new Response('404 Not Found', { status: 404, headers: { 'content-type': 'text/plain; charset=UTF-8' } })

/**
 * What a server runs with, in one line: what stays in this process (`memory`: a backplane, tasks) is said
 * at start-up, not found out when a second instance starts.
 */
function startLine(url: string, s: HandlerSummary): string {
  const parts = [
    `versions ${s.versions.join(', ')}`,
    `backplane ${s.backplane}`,
    `auth ${s.auth ? 'on' : 'off'}`,
    `tasks ${s.tasks ?? 'off'}`,
    `resumable ${s.resumable ?? 'off'}`,
  ]
  if (s.health) parts.push(`health ${s.health}`)
  return `mcp-edge: listening on ${url} | ${parts.join(' | ')}`
}

/**
 * Stops accepting; in-flight requests have `graceMs` to finish. Then what still runs is aborted and its client
 * told so (`abort`), and the connections are closed once those last messages are written.
 */
function shutdown(http: Server, graceMs: number, abort: () => void): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      abort()
      setTimeout(() => http.closeAllConnections(), 100)
    }, graceMs)
    // Keep-alive connections go idle as their last response ends; close each as soon as it does.
    const sweep = setInterval(() => http.closeIdleConnections(), 20)
    http.close(() => {
      clearTimeout(force)
      clearInterval(sweep)
      resolve()
    })
    http.closeIdleConnections()
  })
}
