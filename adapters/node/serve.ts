import { createAdaptorServer, type HttpBindings } from '@hono/node-server'
import { getPath } from 'hono/utils/url'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { createFetchHandler, LOOPBACK_HOSTS, sessions, type FetchHandler, type HandlerOptions, type HandlerSummary, type McpServer, type Notify, type SessionPlan } from '../../src/index.js'
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
  /**
   * Stop gracefully on SIGTERM and SIGINT (default true): `close()`, then the process exits, once
   * `onShutdown` has settled too (code 0; 1 if it failed). A second signal meanwhile ends the process at
   * once. To keep the process, pass `false` and call `close()`, which never exits it.
   */
  handleSignals?: boolean | undefined
  /**
   * How long in-flight requests and the tasks running in this process may run on after a stop begins
   * (default 10 s); what still runs then is stopped: its client gets a final JSON-RPC error, its task fails.
   */
  shutdownGraceMs?: number | undefined
  /**
   * Work to finish before the process exits, run once the server has closed: every connection is closed and
   * what the runtime writes at shutdown is written (tasks' outcomes, the last spans ended). Flush telemetry
   * and close the store's and backplane's connections here; `close()` resolves once it has settled.
   */
  onShutdown?: (() => unknown) | undefined
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
  /**
   * Stops accepting, lets in-flight requests and tasks running here finish within the grace period, stops
   * what remains, then runs `onShutdown`. Resolves once all of it is done; rejects if `onShutdown` failed.
   */
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
  const close = () => (closing ??= shutdown(http, options.shutdownGraceMs ?? 10_000, app).then(() => options.onShutdown?.()).then(() => {}))

  if (options.handleSignals ?? true) {
    const report = options.onError ?? ((error: unknown) => console.error(error))
    const onSignal = (signal: NodeJS.Signals) => {
      // From now on a signal has its default effect: a second Ctrl-C ends the process at once.
      stopHandling()
      log(`mcp-edge: ${signal}, shutting down`)
      close().then(() => process.exit(0), (e: unknown) => {
        report(e, { during: 'shutdown' })
        process.exit(1)
      })
    }
    const stopHandling = () => {
      process.off('SIGTERM', onSignal)
      process.off('SIGINT', onSignal)
    }
    process.once('SIGTERM', onSignal)
    process.once('SIGINT', onSignal)
    http.once('close', stopHandling)
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
 * Stops accepting (health answers 503, listen streams end); in-flight requests and the tasks running here
 * have `graceMs` to finish. Then what still runs is stopped: each request's client is told so (`abort`), the
 * runtime closes (tasks left fail), and the connections are closed once those last messages are written.
 */
async function shutdown(http: Server, graceMs: number, app: Pick<FetchHandler, 'drain' | 'abort' | 'close'>): Promise<void> {
  // Keep-alive connections go idle as their last response ends; close each as soon as it does.
  const sweep = setInterval(() => http.closeIdleConnections(), 20)
  const closed = new Promise<void>((resolve) => http.close(() => resolve()))
  http.closeIdleConnections()
  // Once no request is left, none can start a task: the tasks running then are the last to wait for.
  const drained = Promise.all([app.drain(), closed.then(app.drain)])
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
  clearTimeout(timer)
  app.abort()
  const force = setTimeout(() => http.closeAllConnections(), 100)
  await app.close()
  await closed
  clearTimeout(force)
  clearInterval(sweep)
}
