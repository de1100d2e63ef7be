/**
 * DNS-rebinding and cross-origin defences, and CORS. By default only loopback Host values are accepted, so
 * a rebound name such as evil.example resolving to 127.0.0.1 is refused; a server reached under other names
 * lists them. Any server refuses a browser Origin that is neither its own nor allow-listed; one that takes
 * any Host (`allowedHosts: '*'`, the Workers and Lambda default) has no "own" origin to go by, and takes
 * only the allow-listed ones. The health route (`healthPath`) is checked by neither: see ./health.ts.
 */
export interface SecurityOptions {
  /**
   * Host header values accepted (`name` or `name:port`); default loopback names only. '*' accepts any Host:
   * right where the platform routes by hostname (Workers, Lambda function URLs), wrong for a local server.
   */
  allowedHosts?: string[] | '*' | undefined
  /** Origins accepted besides the server's own (`https://app.example.com`), or '*' for any. */
  allowedOrigins?: string[] | '*' | undefined
}

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]']

const ALLOWED_REQUEST_HEADERS = [
  'content-type', 'accept', 'authorization', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id', 'last-event-id',
  'traceparent', 'tracestate', 'baggage',
]

/**
 * Host and Origin checks, prepared once per handler: the allow-lists lowercased into sets. `origin` false
 * checks the Host alone, for what any site may read.
 */
export function requestGuard(options: SecurityOptions): (request: Request, origin?: boolean) => string | undefined {
  const hosts = options.allowedHosts === '*' ? '*' : new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((h) => h.toLowerCase()))
  const origins = options.allowedOrigins === '*' ? '*' : new Set(options.allowedOrigins ?? [])
  const hostAllowed = (host: string) => {
    if (hosts === '*' || hosts.has(host)) return true
    const colon = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':')
    return colon > 0 && hosts.has(host.slice(0, colon))
  }
  /** The reason a request must be refused with 403, or undefined when it may pass. */
  return (request, checkOrigin = true) => {
    const host = (request.headers.get('host') ?? new URL(request.url).host).toLowerCase()
    if (!hostAllowed(host)) return `Host ${host} is not allowed (see the allowedHosts option)`
    if (!checkOrigin) return undefined
    const origin = request.headers.get('origin')
    // With any Host accepted, the Host proves nothing: a rebound name makes Origin and Host agree at will.
    if (origin === null || origins === '*' || origins.has(origin) || (hosts !== '*' && sameOrigin(origin, host))) return undefined
    return `Origin ${origin} is not allowed`
  }
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    // Same origin as the Host the request was sent to (which passed the Host check).
    return new URL(origin).host.toLowerCase() === host
  } catch {
    return false // "null" and other opaque origins
  }
}

/** CORS response headers (none without an Origin) for an accepted cross-origin request. */
export function corsHeaders(request: Request): Record<string, string> | undefined {
  const origin = request.headers.get('origin')
  if (origin === null) return undefined
  // A 2025 client in a browser reads its session id from initialize's answer.
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'www-authenticate, mcp-session-id' }
}

/** Answers a preflight: every MCP header, including whichever `Mcp-Param-*` the browser asks for. */
export function preflightHeaders(request: Request): Record<string, string> {
  const requested = (request.headers.get('access-control-request-headers') ?? '')
    .split(',').map((h) => h.trim().toLowerCase()).filter((h) => h.startsWith('mcp-param-'))
  return {
    ...corsHeaders(request),
    // GET and DELETE: a 2025 session's stream and end.
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': [...ALLOWED_REQUEST_HEADERS, ...requested].join(', '),
    'access-control-max-age': '86400',
  }
}
