import { DRAINING, HEALTHY, METHOD_NOT_ALLOWED } from './status.js'

const HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' }
const SERVING = JSON.stringify({ status: 'serving' })
const CLOSING = JSON.stringify({ status: 'closing' })

/**
 * The health route for load balancers (HandlerOptions.healthPath): GET and HEAD answer 200 while the handler
 * serves and 503 once it closes, so that a balancer stops sending requests before the instance goes. It
 * answers whatever the Host and Origin and needs no token: a balancer probes with the instance's address as
 * Host, which no allowedHosts list names, and the answer tells nothing but whether the handler serves. (The
 * Host check keeps a rebound browser page from reading the MCP endpoint's answers; here there is nothing to read.)
 */
export function healthRoute(path: string | undefined): (request: Request, closing: boolean) => Response | undefined {
  if (path === undefined) return () => undefined
  if (!path.startsWith('/')) throw new Error(`healthPath must be a path starting with "/" (got "${path}")`)
  return (request, closing) => {
    // The URL is parsed only for a request that may be for it: MCP requests go on at the cost of a search.
    if (!request.url.includes(path) || new URL(request.url).pathname !== path) return undefined
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: METHOD_NOT_ALLOWED, headers: { allow: 'GET, HEAD' } })
    const body = request.method === 'HEAD' ? null : closing ? CLOSING : SERVING
    return new Response(body, { status: closing ? DRAINING : HEALTHY, headers: HEADERS })
  }
}
