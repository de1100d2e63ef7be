import { INTERNAL_ERROR, OVERLOADED } from '../../protocol/constants.js'
import { McpError, Overloaded } from '../../protocol/errors.js'
import { errorResponse, type JsonObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js'
import type { AuthGate } from '../../auth/gate.js'
import { Cancellation } from '../../exchange/cancellation.js'
import { clientShare } from '../../exchange/client-share.js'
import { SessionStream } from '../../exchange/session-stream.js'
import type { Answer, Runtime } from '../../exchange/types.js'
import { StoreFull } from '../../state/tasks.js'
import { clientAddress } from '../client-address.js'
import { json, refuse } from '../respond.js'
import type { RuntimeContext } from '../runtime-context.js'
import { openSse, type KeepAlive } from '../sse.js'
import { ACCEPTED, MALFORMED, SERVICE_UNAVAILABLE } from '../status.js'
import { recordId, stateOf } from './records.js'
import { deliverAnswer } from './replies.js'
import { endSession, findSession, type OpenedSession, type Sessions } from './session.js'
import { issueSession } from './token.js'

// The HTTP side of 2025 sessions (src/http/handler.ts routes here): the session a request names, the client's
// answers, GET (the session's stream), DELETE (its end) and the id an initialize issues.

export const SESSION_HEADER = 'mcp-session-id'
/** The SDKs' code for an unknown session, beside the 404 the 2025 transport requires. */
const SESSION_NOT_FOUND = -32001
const NOT_FOUND = 404

/** What the routes need of their handler. */
export interface SessionContext {
  readonly runtime: Runtime
  readonly gate: AuthGate | undefined
  readonly keepAlives: KeepAlive
  readonly clientAddressHeader: string | undefined
}

/** The live session an id names; a Response when there is none (404) or the store cannot tell (503). */
export async function lookup(context: SessionContext, sessions: Sessions, id: string, principal: string | undefined): Promise<OpenedSession | Response> {
  try {
    return await findSession(context.runtime, sessions, id, principal) ?? refuse('Session not found: it ended or expired; initialize a new one', NOT_FOUND, undefined, SESSION_NOT_FOUND)
  } catch (e) {
    return unavailable(context, e)
  }
}

/** The client's answer to a request we sent it in its session: 202 once it is on its way to the asker. */
export async function answered(context: SessionContext, sessions: Sessions, session: OpenedSession, body: JsonObject, principal: string | undefined, request: Request, platform: RuntimeContext): Promise<Response> {
  const { store, limits } = sessions
  try {
    await deliverAnswer(context.runtime, store, session.claims.key, body, { client: shareOf(context, principal, request, platform), perClient: limits.perClient, total: limits.total })
  } catch (e) {
    if (!(e instanceof StoreFull)) return unavailable(context, e)
    return refuse(e.message, e.fault === 'client' ? 429 : SERVICE_UNAVAILABLE, { 'retry-after': '10' }, OVERLOADED)
  }
  return new Response(null, { status: ACCEPTED })
}

/** DELETE: the session ends for every instance (its streams close); its id gets 404 from then on. */
export async function end(context: SessionContext, sessions: Sessions, request: Request, platform: RuntimeContext): Promise<Response> {
  const found = await named(context, sessions, request, platform)
  if (found instanceof Response) return found
  try {
    await endSession(context.runtime, sessions, found.session, found.client)
  } catch (e) {
    return unavailable(context, e)
  }
  return new Response(null, { status: 204 })
}

/** GET: the session's stream of change notifications, until the client leaves, its lifetime ends or the session does. */
export async function follow(context: SessionContext, sessions: Sessions, request: Request, platform: RuntimeContext): Promise<Response> {
  const found = await named(context, sessions, request, platform)
  if (found instanceof Response) return found
  const { runtime } = context
  const { key } = found.session.claims
  const stream = new SessionStream(runtime, {
    key,
    uris: found.session.state.subscriptions,
    client: found.client,
    expires: Math.min(Date.now() + runtime.maxListenMs, platform.deadline ?? Infinity),
    refresh: async () => {
      const state = stateOf(await sessions.store.get(recordId(key)))
      return state.ended ? undefined : state.subscriptions
    },
  })
  try {
    stream.start()
  } catch (e) {
    if (!(e instanceof Overloaded)) throw e
    return json(errorResponse(undefined, e), e.fault === 'client' ? 429 : SERVICE_UNAVAILABLE, { 'retry-after': String(e.retryAfterSec) })
  }
  // The client leaving ends the stream: its SSE writer aborts this cancellation.
  const cancel = new Cancellation(request)
  cancel.onAbort(stream.end)
  const { stream: sse, response } = openSse(context.keepAlives, platform, request, cancel)
  stream.sink = sse
  return response
}

/** A 2025 client's initialize, answered: its session begins, named by `issue` in the response's Mcp-Session-Id. */
export async function issued(runtime: Runtime, sessions: Sessions, message: JsonRpcRequest, principal: string | undefined, answer: Answer, issue: (id: string) => void): Promise<Answer> {
  if (!answer.ok || answer.profile.era !== 'legacy') return answer
  try {
    issue(await issueSession(runtime, message.params ?? {}, principal, sessions.ttlMs))
    return answer
  } catch (e) {
    if (e instanceof McpError) return { ok: false, id: answer.id, profile: answer.profile, stage: 'envelope', error: e }
    const errorId = runtime.report(e, { method: 'initialize', requestId: answer.id, during: 'session' })
    return { ok: false, id: answer.id, profile: answer.profile, stage: 'method', error: new McpError(INTERNAL_ERROR, `Internal error (error id ${errorId})`) }
  }
}

/** The session a GET or DELETE names, once its token (if any) is checked, and whose share it takes; a Response when there is none. */
async function named(context: SessionContext, sessions: Sessions, request: Request, platform: RuntimeContext): Promise<Response | { session: OpenedSession; client: string | undefined }> {
  const checked = context.gate ? await context.gate.authenticate(request, platform.env, platform.auth) : undefined
  if (checked instanceof Response) return checked
  const id = request.headers.get(SESSION_HEADER)
  if (!id) return refuse(`Bad Request: ${request.method} needs the Mcp-Session-Id of a session`, MALFORMED)
  const session = await lookup(context, sessions, id, checked?.principal)
  return session instanceof Response ? session : { session, client: shareOf(context, checked?.principal, request, platform) }
}

const shareOf = (context: SessionContext, principal: string | undefined, request: Request, platform: RuntimeContext) =>
  clientShare(principal, { clientAddress: clientAddress(request.headers, context.clientAddressHeader, platform.clientAddress) })

/** The store (or backplane) failed: the client may try again; the operator learns why. */
function unavailable(context: SessionContext, e: unknown): Response {
  const errorId = context.runtime.report(e, { during: 'session' })
  return refuse(`Sessions are unavailable for a moment (error id ${errorId}): try again`, SERVICE_UNAVAILABLE, { 'retry-after': '1' }, OVERLOADED)
}
