import { LOG_LEVELS, type LogLevel } from '../protocol/constants.js'
import { isObject, notification, type JsonObject, type JsonRpcId } from '../protocol/jsonrpc.js'
import type { Call } from './call.js'
import type {
  ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, Implementation,
  InputRequest, InputResponseFor, ListRootsResult,
} from '../protocol/types.js'
import { answer, legacyInputError, type Round } from './input.js'

/** What a handler gets besides its arguments. One is made per request; it holds nothing after the request. */
export interface RequestContext {
  /** Aborted when the client goes away (closes the stream; over stdio, cancels) or a stdio server stops. */
  readonly signal: AbortSignal
  readonly requestId: JsonRpcId
  readonly method: string
  readonly protocolVersion: string
  readonly client: { readonly info?: Implementation; readonly capabilities: ClientCapabilities }
  /** The request's `_meta`, as sent. */
  readonly meta: JsonObject
  /** The HTTP request, when the request came over HTTP. */
  readonly request?: Request
  /** What the runtime passes along: Workers `env`, the Lambda `context`, or `{ incoming, outgoing }` on Node. */
  readonly env?: unknown
  /** Keeps the runtime alive until `promise` settles, after the response if need be (Workers, Lambda). */
  waitUntil(promise: Promise<unknown>): void
  /** Reports progress when the client asked for it (a progressToken); values must increase. */
  progress(progress: number, total?: number, message?: string): void
  /** Sends a log message when the request's logLevel asks for this level or a lower one. */
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

/**
 * The RequestContext of one request. A class, so that its methods live once on the prototype instead of as
 * closures made for every request: the hot path allocates little.
 */
export class Context implements RequestContext {
  readonly #call: Call
  #round: Round | (() => Promise<Round>) | undefined
  #lastProgress = -Infinity
  #client: RequestContext['client'] | undefined

  /** `round`: the multi-round state, or how to open it on first use; none where input cannot be asked for. */
  constructor(call: Call, round?: Round | (() => Promise<Round>)) {
    this.#call = call
    this.#round = round
  }

  get signal(): AbortSignal {
    return this.#call.cancel.signal
  }
  get requestId(): JsonRpcId {
    return this.#call.id
  }
  get method(): string {
    return this.#call.method
  }
  get protocolVersion(): string {
    return this.#call.profile.version
  }
  get client(): RequestContext['client'] {
    return (this.#client ??= { info: this.#call.clientInfo, capabilities: this.#call.capabilities })
  }
  get meta(): JsonObject {
    const meta = this.#call.params._meta
    return isObject(meta) ? meta : {}
  }
  get request(): Request | undefined {
    return this.#call.request
  }
  get env(): unknown {
    return this.#call.env
  }
  /** The multi-round state, if it has been opened. */
  get openedRound(): Round | undefined {
    return typeof this.#round === 'function' ? undefined : this.#round
  }

  waitUntil(promise: Promise<unknown>): void {
    if (this.#call.waitUntil) this.#call.waitUntil(promise)
    else promise.catch((e) => console.error('mcp-edge: a waitUntil promise failed', e))
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.#call.progressToken
    if (token === undefined || this.#call.cancel.aborted || !(progress > this.#lastProgress)) return
    this.#lastProgress = progress
    const params: JsonObject = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.#call.emit(notification('notifications/progress', params))
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const wanted = this.#call.logLevel
    if (wanted === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted) || this.#call.cancel.aborted) return
    const params: JsonObject = { level, data }
    if (logger !== undefined) params.logger = logger
    this.#call.emit(notification('notifications/message', params))
  }

  async ask<R extends Record<string, InputRequest>>(requests: R): Promise<{ [K in keyof R]: InputResponseFor<R[K]> }> {
    const { profile, method, capabilities } = this.#call
    if (profile.era === 'legacy') throw legacyInputError(profile)
    if (!this.#round) throw new Error(`${method} cannot ask the client for input`)
    return answer(await this.#opened(), requests, capabilities, profile) as never
  }

  async elicit(key: string, params: ElicitRequest['params']): Promise<ElicitResult> {
    return (await this.ask({ [key]: { method: 'elicitation/create', params } }))[key] as ElicitResult
  }

  async sample(key: string, params: CreateMessageRequest['params']): Promise<CreateMessageResult> {
    return (await this.ask({ [key]: { method: 'sampling/createMessage', params } }))[key] as CreateMessageResult
  }

  async listRoots(key: string): Promise<ListRootsResult> {
    return (await this.ask({ [key]: { method: 'roots/list', params: {} } }))[key] as ListRootsResult
  }

  async memo<T>(key: string, compute: () => T | Promise<T>): Promise<T> {
    const round = this.#round ? await this.#opened() : undefined
    if (round && Object.hasOwn(round.memo, key)) return round.memo[key] as T
    const value = await compute()
    if (round) round.memo[key] = value as unknown
    return value
  }

  async #opened(): Promise<Round> {
    if (typeof this.#round === 'function') this.#round = await this.#round()
    return this.#round!
  }
}
