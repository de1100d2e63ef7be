import type { LogLevel } from '../protocol/constants.js'
import { invalidParams } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { CachePolicy, ClientCapabilities, Implementation } from '../protocol/types.js'
import { createContext, type RequestContext } from './context.js'
import { InputRequired, inputRequiredResult, openRound, type Round } from './input.js'
import type { McpServer } from './server.js'

/** One request, already past envelope and header validation, as the transports hand it over. */
export interface Call {
  id: JsonRpcId
  method: string
  params: JsonObject
  profile: Profile
  capabilities: ClientCapabilities
  clientInfo?: Implementation
  logLevel?: LogLevel
  progressToken?: string | number
  signal: AbortSignal
  /** Where progress and log notifications go (the request's SSE stream, or stdio). */
  emit: (message: JsonRpcNotification) => void
  request?: Request
  env?: unknown
  waitUntil?: (promise: Promise<unknown>) => void
  /** The authenticated principal, bound into requestState. */
  principal?: string
}

export type Method = (server: McpServer, call: Call) => Promise<JsonObject>

export function contextFor(call: Call, round?: Round): RequestContext {
  return createContext({
    id: call.id,
    method: call.method,
    profile: call.profile,
    capabilities: call.capabilities,
    clientInfo: call.clientInfo,
    meta: isObject(call.params._meta) ? call.params._meta : {},
    logLevel: call.logLevel,
    progressToken: call.progressToken,
    signal: call.signal,
    emit: call.emit,
    round,
    request: call.request,
    env: call.env,
    waitUntil: call.waitUntil,
  })
}

/** Runs a handler that may ask for input, turning an unanswered request into an `input_required` result. */
export async function withInput(server: McpServer, call: Call, run: (ctx: RequestContext) => Promise<JsonObject>): Promise<JsonObject> {
  const round = call.profile.inputRequiredMethods.has(call.method)
    ? await openRound(server, call.method, call.params, call.principal)
    : undefined
  try {
    return await run(contextFor(call, round))
  } catch (e) {
    if (e instanceof InputRequired && round) return inputRequiredResult(server, round, e.requests)
    throw e
  }
}

/** Adds caching hints (SEP-2549) where the request's version has them. */
export const cached = (call: Call, policy: CachePolicy, result: JsonObject): JsonObject =>
  call.profile.cacheFields ? { ...result, ttlMs: policy.ttlMs, cacheScope: policy.cacheScope } : result

export function requireString(params: JsonObject, key: string): string {
  const value = params[key]
  if (typeof value !== 'string') throw invalidParams(`params.${key} must be a string`)
  return value
}

export function argumentsOf(params: JsonObject): JsonObject {
  const args = params.arguments ?? {}
  if (!isObject(args)) throw invalidParams('params.arguments must be an object')
  return args
}

export const enabled = <E extends { enabled: boolean }>(map: Map<string, E>): E[] => [...map.values()].filter((e) => e.enabled)

export const pageSize = (server: McpServer): number => server.options.pageSize ?? 100
