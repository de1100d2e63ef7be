import type { AuthInfo } from '../server/context.js'
import type { BodySource } from './body.js'
import type { DirectSse } from './sse.js'

/** What a runtime hands to each request besides the Request itself. */
export interface RuntimeContext {
  /** Passed to handlers as `ctx.env` (Workers bindings; on Lambda, `{ event, context }`). */
  env?: unknown
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
  /**
   * When the platform ends the request whatever happens (ms since the epoch; Lambda's timeout less a
   * margin): listen streams end gracefully with their result by then.
   */
  deadline?: number | undefined
  /**
   * The platform delivers the response whole (Lambda behind an HTTP API or ALB): the answer is always one
   * JSON object, notifications before it are dropped, and `subscriptions/listen` is refused with a reason.
   */
  buffered?: boolean | undefined
  /**
   * Identity an outer layer verified already (createWorker takes it from workers-oauth-provider's
   * `ctx.auth`): with `auth` configured, it stands in for the bearer token, whose scopes still apply.
   */
  auth?: AuthInfo | undefined
  /** The client's network address (Node: the socket's; Workers: CF-Connecting-IP; Lambda: the source IP). */
  clientAddress?: string | undefined
  /**
   * Writes SSE streams to the connection itself instead of through a Response body (Node: straight to the
   * ServerResponse), which saves each open stream a ReadableStream, its reader and their promises.
   */
  sse?: DirectSse | undefined
  /**
   * Reads the request body where the runtime does it cheaper than `request.body` (Node: off the
   * IncomingMessage); called once, for a POST.
   */
  body?: (() => BodySource) | undefined
}
