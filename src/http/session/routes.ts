import { HEADER_SESSION_ID, INTERNAL_ERROR, OVERLOADED } from '../../protocol/constants.js'
import { McpError, Overloaded } from '../../protocol/errors.js'
import { errorResponse, isObject, type JsonObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js'
import type { AuthGate } from '../../auth/gate.js'
import { Cancellation } from '../../exchange/cancellation.js'
import { clientShare } from '../../exchange/client-share.js'
import { SessionStream } from '../../exchange/session-stream.js'
import type { Answer, Runtime, Session, Transport } from '../../exchange/types.js'
import { StoreFull } from '../../state/tasks.js'
import { clientAddress } from '../client-address.js'
import { json, refuse } from '../respond.js'
import type { RuntimeContext } from '../runtime-context.js'
import { openSse, type KeepAlive } from '../sse.js'
import { ACCEPTED, MALFORMED, SERVICE_UNAVAILABLE } from '../status.js'
import { recordId, stateOf } from './records.js'
import { deliverAnswer, isAskId } from './replies.js'
import { endSession, findSession, HttpSession, type OpenedSession, type Sessions } from './session.js'
import { issueSession } from './token.js'

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

/**
 * The HTTP side of 2025 sessions, what src/http/handler.ts asks of them when `sessions()` turned them on:
 * the session a request names, the client's answers, GET (the session's stream), DELETE (its end) and the id
 * an initialize issues. The handler knows this class only as a type, so a server without sessions bundles none of it.
 */
export class SessionRoutes {
  constructor(readonly sessions: Sessions) {}

  /** The live session an id names; a Response when there is none (404) or the store cannot tell (503). */
  async lookup(context: SessionContext, id: string, principal: string | undefined): Promise<OpenedSession | Response> {
    try {
      return await findSession(context.runtime, this.sessions, id, principal) ?? refuse('Session not found: it ended or expired; initialize a new one', NOT_FOUND, undefined, SESSION_NOT_FOUND)
    } catch (e) {
      return unavailable(context, e)
    }
  }

  /** Whether a body is the client's answer to a request we sent it (a response, to an id of ours). */
  isAnswer(body: unknown): body is JsonObject {
    return isObject(body) && !('method' in body) && isAskId(body.id)
  }

  /** The client's answer to a request we sent it in its session: 202 once it is on its way to the asker. */
  async answered(context: SessionContext, session: OpenedSession, body: JsonObject, principal: string | undefined, request: Request, platform: RuntimeContext): Promise<Response> {
    const { store, limits } = this.sessions
    try {
      await deliverAnswer(context.runtime, store, session.claims.key, body, { client: shareOf(context, principal, request, platform), perClient: limits.perClient, total: limits.total })
    } catch (e) {
      if (!(e instanceof StoreFull)) return unavailable(context, e)
      return refuse(e.message, e.fault === 'client' ? 429 : SERVICE_UNAVAILABLE, { 'retry-after': '10' }, OVERLOADED)
    }
    return new Response(null, { status: ACCEPTED })
  }

  /** The session of one request, as the exchange core sees it. */
  attach(runtime: Runtime, session: OpenedSession, transport: Pick<Transport, 'emit' | 'principal' | 'clientAddress' | 'buffered'>): Session {
    return new HttpSession(runtime, this.sessions, session, transport)
  }

  /** DELETE: the session ends for every instance (its streams close); its id gets 404 from then on. */
  async end(context: SessionContext, request: Request, platform: RuntimeContext): Promise<Response> {
    const found = await this.#named(context, request, platform)
    if (found instanceof Response) return found
    try {
      await endSession(context.runtime, this.sessions, found.session, found.client)
    } catch (e) {
      return unavailable(context, e)
    }
    return new Response(null, { status: 204 })
  }

  /** GET: the session's stream of change notifications, until the client leaves, its lifetime ends or the session does. */
  async follow(context: SessionContext, request: Request, platform: RuntimeContext): Promise<Response> {
    const found = await this.#named(context, request, platform)
    if (found instanceof Response) return found
    const { runtime } = context
    const { store } = this.sessions
    const { key } = found.session.claims
    const stream = new SessionStream(runtime, {
      key,
      uris: found.session.state.subscriptions,
      client: found.client,
      expires: Math.min(Date.now() + runtime.maxListenMs, platform.deadline ?? Infinity),
      refresh: async () => {
        const state = stateOf(await store.get(recordId(key)))
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
  async issued(runtime: Runtime, message: JsonRpcRequest, principal: string | undefined, answer: Answer, issue: (id: string) => void): Promise<Answer> {
    if (!answer.ok || answer.profile.era !== 'legacy') return answer
    try {
      issue(await issueSession(runtime, message.params ?? {}, principal, this.sessions.ttlMs, await this.sessions.epoch.current()))
      return answer
    } catch (e) {
      if (e instanceof McpError) return { ok: false, id: answer.id, profile: answer.profile, stage: 'envelope', error: e }
      const errorId = runtime.report(e, { method: 'initialize', requestId: answer.id, during: 'session' })
      return { ok: false, id: answer.id, profile: answer.profile, stage: 'method', error: new McpError(INTERNAL_ERROR, `Internal error (error id ${errorId})`) }
    }
  }

  /** The session a GET or DELETE names, once its token (if any) is checked, and whose share it takes; a Response when there is none. */
  async #named(context: SessionContext, request: Request, platform: RuntimeContext): Promise<Response | { session: OpenedSession; client: string | undefined }> {
    const checked = context.gate ? await context.gate.authenticate(request, platform.env, platform.auth) : undefined
    if (checked instanceof Response) return checked
    const id = request.headers.get(HEADER_SESSION_ID)
    if (!id) return refuse(`Bad Request: ${request.method} needs the Mcp-Session-Id of a session`, MALFORMED)
    const session = await this.lookup(context, id, checked?.principal)
    return session instanceof Response ? session : { session, client: shareOf(context, checked?.principal, request, platform) }
  }
}

const shareOf = (context: SessionContext, principal: string | undefined, request: Request, platform: RuntimeContext) =>
  clientShare(principal, { clientAddress: clientAddress(request.headers, context.clientAddressHeader, platform.clientAddress) })

/** The store (or backplane) failed: the client may try again; the operator learns why. */
function unavailable(context: SessionContext, e: unknown): Response {
  const errorId = context.runtime.report(e, { during: 'session' })
  return refuse(`Sessions are unavailable for a moment (error id ${errorId}): try again`, SERVICE_UNAVAILABLE, { 'retry-after': '1' }, OVERLOADED)
}
