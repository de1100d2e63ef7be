import { INTERNAL_ERROR, INVALID_PARAMS, type LogLevel } from '../../protocol/constants.js'
import { McpError, Overloaded } from '../../protocol/errors.js'
import type { JsonObject } from '../../protocol/jsonrpc.js'
import type { InputRequest } from '../../protocol/types.js'
import { clientShare } from '../../exchange/client-share.js'
import { sessionTopic } from '../../exchange/session-stream.js'
import type { Runtime, Session, Transport } from '../../exchange/types.js'
import { StoreFull, type TaskStore } from '../../state/tasks.js'
import { change, ended, levelSet, recordId, stateOf, subscribed, type Known, type SessionLimits, type SessionState, type Transition } from './records.js'
import type { SessionEpoch } from './epoch.js'
import { askClient } from './replies.js'
import { openSession, type SessionClaims } from './token.js'

export interface SessionOptions {
  /** How long a session lives from its `initialize` (default 24 hours); then the client initializes again. */
  ttlMs?: number | undefined
  /** Sessions with something to remember (a log level, subscriptions) one client may have (default 100). */
  maxPerClient?: number | undefined
  /** Such sessions in all (default 100,000). */
  maxTotal?: number | undefined
  /** Resources one session may subscribe to (default 1,000). */
  maxSubscriptions?: number | undefined
}

/** The sessions of one handler: where their state is kept, and its limits. */
export interface Sessions {
  readonly store: TaskStore
  /** Since when the store has kept every record: ids issued before are refused (a memory store restarted). */
  readonly epoch: SessionEpoch
  readonly ttlMs: number
  readonly limits: SessionLimits
}

/** A session that exists: its claims, what it remembers, and the record that says so (none until it changed something). */
export interface OpenedSession {
  readonly claims: SessionClaims
  readonly state: SessionState
  readonly known: Known
}

/**
 * The live session an `Mcp-Session-Id` names; undefined when it is not one (forged, expired, another
 * principal's), ended, or issued before the store's epoch (it may have forgotten the end).
 */
export async function findSession(runtime: Runtime, sessions: Sessions, id: string, principal: string | undefined): Promise<OpenedSession | undefined> {
  const claims = await openSession(runtime, id, principal)
  if (!claims) return undefined
  const [epoch, record] = await Promise.all([sessions.epoch.current(), sessions.store.get(recordId(claims.key))])
  const state = stateOf(record)
  return state.ended || (claims.issuedAt ?? 0) < (epoch ?? 0) ? undefined : { claims, state, known: { record } }
}

/**
 * DELETE of a session: ended for every instance (its record says so until the session would have
 * expired), and its streams closed.
 */
export async function endSession(runtime: Runtime, sessions: Sessions, opened: OpenedSession, client: string | undefined): Promise<void> {
  await change(sessions.store, opened.claims, ended, sessions.limits, client, opened.known)
  await tell(runtime, opened.claims.key, { ended: true })
}

/** The session of one request, as the exchange core sees it (Session). */
export class HttpSession implements Session {
  #state: SessionState

  constructor(
    private readonly runtime: Runtime,
    private readonly sessions: Sessions,
    private readonly opened: OpenedSession,
    private readonly transport: Pick<Transport, 'emit' | 'principal' | 'clientAddress' | 'buffered'>,
  ) {
    this.#state = opened.state
  }

  private get claims(): SessionClaims {
    return this.opened.claims
  }

  get client(): Session['client'] {
    return this.claims.client
  }

  get logLevel(): LogLevel | undefined {
    return this.#state.logLevel
  }

  async setLevel(level: LogLevel): Promise<void> {
    await this.#change(levelSet(level))
  }

  async subscribe(uri: string, on: boolean): Promise<void> {
    await this.#change(subscribed(uri, on))
    // The session's streams start (or stop) following the URI, on whichever instance holds them.
    await tell(this.runtime, this.claims.key, { uri, on })
  }

  ask(requests: readonly InputRequest[], signal: AbortSignal): Promise<unknown[]> {
    const { transport } = this
    if (transport.buffered) return Promise.reject(new McpError(INTERNAL_ERROR, 'This request needs input from the client, and this endpoint delivers responses whole: serve it where responses stream'))
    // A request is written to the stream as a notification would be: the first one opens it.
    const emit = (request: JsonObject) => transport.emit(request as never)
    return askClient(this.runtime.backplane, this.sessions.store, this.claims.key, emit, requests, signal)
  }

  async #change(transition: Transition): Promise<void> {
    const client = clientShare(this.transport.principal, this.transport)
    try {
      this.#state = await change(this.sessions.store, this.claims, transition, this.sessions.limits, client, this.opened.known)
    } catch (e) {
      if (e instanceof RangeError) throw new McpError(INVALID_PARAMS, `Refused: ${e.message}`)
      if (e instanceof StoreFull) throw new Overloaded(e.message, e.fault, 10)
      throw e
    }
  }
}

/**
 * Tells the session's open streams, on every instance, of a change kept in the store already: a publish that
 * fails is reported, not the request's failure (a stream reads the store again when it opens).
 */
function tell(runtime: Runtime, key: string, data: JsonObject): Promise<void> {
  return runtime.backplane.publish({ topic: sessionTopic(key), data }).catch((e: unknown) => void runtime.report(e, { during: 'publish' }))
}
