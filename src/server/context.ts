import { LOG_LEVELS, type LogLevel } from '../protocol/constants.js'
import { notification, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
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

export interface ContextInit {
  id: JsonRpcId
  method: string
  profile: Profile
  capabilities: ClientCapabilities
  clientInfo?: Implementation
  meta: JsonObject
  logLevel?: LogLevel
  progressToken?: string | number
  signal: AbortSignal
  emit: (message: JsonRpcNotification) => void
  round?: Round
  request?: Request
  env?: unknown
  waitUntil?: (promise: Promise<unknown>) => void
}

export function createContext(init: ContextInit): RequestContext {
  const { profile, round, emit, signal } = init
  let lastProgress = -Infinity
  const threshold = init.logLevel === undefined ? Infinity : LOG_LEVELS.indexOf(init.logLevel)

  const ask = async (requests: Record<string, InputRequest>) => {
    if (profile.era === 'legacy') throw legacyInputError(profile)
    if (!round) throw new Error(`${init.method} cannot ask the client for input (only tools/call, prompts/get and resources/read can)`)
    return answer(round, requests, init.capabilities, profile)
  }

  return {
    signal,
    requestId: init.id,
    method: init.method,
    protocolVersion: profile.version,
    client: { info: init.clientInfo, capabilities: init.capabilities },
    meta: init.meta,
    request: init.request,
    env: init.env,
    waitUntil(promise) {
      if (init.waitUntil) init.waitUntil(promise)
      else promise.catch((e) => console.error('mcp-edge: a waitUntil promise failed', e))
    },
    progress(progress, total, message) {
      if (init.progressToken === undefined || signal.aborted || !(progress > lastProgress)) return
      lastProgress = progress
      const params: JsonObject = { progressToken: init.progressToken, progress }
      if (total !== undefined) params.total = total
      if (message !== undefined) params.message = message
      emit(notification('notifications/progress', params))
    },
    log(level, data, logger) {
      if (signal.aborted || LOG_LEVELS.indexOf(level) < threshold) return
      const params: JsonObject = { level, data }
      if (logger !== undefined) params.logger = logger
      emit(notification('notifications/message', params))
    },
    ask: ask as RequestContext['ask'],
    async elicit(key, params) {
      return (await ask({ [key]: { method: 'elicitation/create', params } }))[key] as ElicitResult
    },
    async sample(key, params) {
      return (await ask({ [key]: { method: 'sampling/createMessage', params } }))[key] as CreateMessageResult
    },
    async listRoots(key) {
      return (await ask({ [key]: { method: 'roots/list', params: {} } }))[key] as ListRootsResult
    },
    async memo(key, compute) {
      if (round && Object.hasOwn(round.memo, key)) return round.memo[key] as never
      const value = await compute()
      if (round) round.memo[key] = value as unknown
      return value
    },
  }
}
