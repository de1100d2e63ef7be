import type { LogLevel } from '../protocol/constants.js'
import type { JsonObject, JsonRpcId } from '../protocol/jsonrpc.js'
import type {
  ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Implementation,
  InputRequest, InputResponseFor, ListRootsResult,
} from '../protocol/types.js'

/**
 * What a verified access token says about who is asking. The token itself is not part of it: a handler
 * has nothing to pass upstream (the spec forbids token passthrough), and nothing to log by mistake.
 */
export interface AuthInfo {
  /** The token's `sub`: the user (or the client, for client-credentials tokens). */
  readonly subject?: string | undefined
  /** The token's `iss`: who vouches for the subject. */
  readonly issuer?: string | undefined
  /** The OAuth client the token was issued to (`client_id`, or `azp`). */
  readonly clientId?: string | undefined
  /** Granted scopes, with those they imply (the `scopeImplies` option) already added. */
  readonly scopes: readonly string[]
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt?: number | undefined
  /** Every claim of the token (for a JWT, its payload). */
  readonly claims: Readonly<Record<string, unknown>>
}

/** Who is asking: what `visible` predicates decide on. */
export interface Asker {
  /**
   * Whom state is bound to (requestState, tasks, listen streams): `issuer|subject` of a verified token, or
   * `client:<id>` for a token without a subject; undefined when requests are not authenticated.
   */
  readonly principal?: string | undefined
  /** The verified token's identity and scopes; undefined when requests are not authenticated. */
  readonly auth?: AuthInfo | undefined
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
}

/**
 * Tells every listen stream, on every instance sharing the backplane, that something changed. Never
 * rejects: each resolves to whether the backplane took the change. When it did not (an outage), the
 * failure went to the runtime's `onError` (and the Redis backplane guarantees it is not delivered later).
 */
export interface Notify {
  toolsChanged(): Promise<boolean>
  promptsChanged(): Promise<boolean>
  resourcesChanged(): Promise<boolean>
  resourceUpdated(uri: string): Promise<boolean>
}

/** What a handler gets besides its arguments. One is made per request; it holds nothing after the request. */
export interface RequestContext extends Asker {
  /** Aborted when the client goes away (closes the stream; over stdio, cancels) or a stdio server stops. */
  readonly signal: AbortSignal
  readonly requestId: JsonRpcId
  readonly method: string
  readonly protocolVersion: string
  /** The request's `_meta`, as sent. */
  readonly meta: JsonObject
  /** The HTTP request, when the request came over HTTP. */
  readonly request?: Request | undefined
  /** What the runtime passes along: Workers `env`, the Lambda `context`, or `{ incoming, outgoing }` on Node. */
  readonly env?: unknown
  /** Cross-instance change notification, as the runtime serving this request is wired (its backplane). */
  readonly notify: Notify
  /** Keeps the runtime alive until `promise` settles, after the response if need be (Workers, Lambda). */
  waitUntil(promise: Promise<unknown>): void
  /** Reports progress when the client asked for it (a progressToken); values must increase. */
  progress(progress: number, total?: number, message?: string): void
  /** Sends a log message when the request's logLevel asks for this level or a more severe one. */
  log(level: LogLevel, data: unknown, logger?: string): void
  /**
   * Asks the client for input (elicitation, sampling, roots), several at once if needed. Resolves when the
   * client has answered all of them; until then the handler is stopped and the client gets an
   * `input_required` result, and the handler runs again from the top on the retry. Keys must stay stable
   * across rounds. Throws -32021 when the client did not declare the capability a request needs.
   */
  ask<R extends Record<string, InputRequest>>(requests: R): Promise<{ [K in keyof R]: InputResponseFor<R[K]> }>
  elicit(key: string, params: ElicitRequest['params']): Promise<ElicitResult>
  sample(key: string, params: CreateMessageRequest['params']): Promise<CreateMessageResult>
  listRoots(key: string): Promise<ListRootsResult>
  /**
   * Computes a JSON value once per multi-round request and carries it in the requestState, so that work
   * done before asking for input is not repeated on the retry. The client can read (not change) it.
   */
  memo<T>(key: string, compute: () => T | Promise<T>): Promise<T>
}
