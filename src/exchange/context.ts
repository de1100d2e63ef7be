import { LOG_LEVELS, type LogLevel } from '../protocol/constants.js'
import { isObject, notification, type JsonObject, type JsonRpcId } from '../protocol/jsonrpc.js'
import type {
  CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, InputRequest, InputResponseFor, ListRootsResult,
} from '../protocol/types.js'
import type { AuthInfo, Notify, RequestContext } from '../server/context.js'
import type { Call } from './types.js'
import { answer, askSession, legacyInputError, type Round } from './input.js'

/**
 * The RequestContext of one request. A class, so that its methods live once on the prototype instead of as
 * closures made for every request: the hot path allocates little.
 */
export class Context implements RequestContext {
  readonly #call: Call
  #round: Round | (() => Promise<Round>) | undefined
  #lastProgress = -Infinity

  /** `round`: the multi-round state, or how to open it on first use; none where input cannot be asked for. */
  constructor(call: Call, round?: Round | (() => Promise<Round>)) {
    this.#call = call
    this.#round = round
  }

  get signal(): AbortSignal {
    return this.#call.transport.cancel.signal
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
    return this.#call.client
  }
  get principal(): string | undefined {
    return this.#call.principal
  }
  get auth(): AuthInfo | undefined {
    return this.#call.auth
  }
  get meta(): JsonObject {
    const meta = this.#call.params._meta
    return isObject(meta) ? meta : {}
  }
  get request(): Request | undefined {
    return this.#call.transport.request
  }
  get env(): unknown {
    return this.#call.transport.env
  }
  get notify(): Notify {
    return this.#call.runtime.notify
  }
  /** The multi-round state, if it has been opened. */
  get openedRound(): Round | undefined {
    return typeof this.#round === 'function' ? undefined : this.#round
  }

  waitUntil(promise: Promise<unknown>): void {
    const { transport, runtime, method, id } = this.#call
    // Failures are reported whether or not the runtime keeps itself alive for the promise.
    const watched = promise.catch((e) => void runtime.report(e, { method, requestId: id, during: 'waitUntil' }))
    transport.waitUntil?.(watched)
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.#call.progressToken
    if (token === undefined || this.#call.transport.cancel.aborted || !(progress > this.#lastProgress)) return
    this.#lastProgress = progress
    const params: JsonObject = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.#call.transport.emit(notification('notifications/progress', params))
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const wanted = this.#call.logLevel
    if (wanted === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(wanted) || this.#call.transport.cancel.aborted) return
    const params: JsonObject = { level, data }
    if (logger !== undefined) params.logger = logger
    this.#call.transport.emit(notification('notifications/message', params))
  }

  async ask<R extends Record<string, InputRequest>>(requests: R): Promise<{ [K in keyof R]: InputResponseFor<R[K]> }> {
    const { profile, method, client } = this.#call
    if (profile.era === 'legacy') {
      const { session } = this.#call.transport
      if (!session) throw legacyInputError(profile, method)
      return askSession(this.#call, session, requests) as never
    }
    if (!this.#round) throw new Error(`${method} cannot ask the client for input`)
    return answer(await this.#opened(), requests, client.capabilities, profile) as never
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
