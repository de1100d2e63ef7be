import type { LogLevel } from '../protocol/constants.js'
import { invalidParams } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { CachePolicy, ClientCapabilities, Implementation } from '../protocol/types.js'
import type { Cancellation } from './cancellation.js'
import { Context, type RequestContext } from './context.js'
import { InputRequired, inputRequiredResult, openRound, type Round } from './input.js'
import { page } from './cursor.js'
import type { ListName } from './definitions.js'
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
  cancel: Cancellation
  /** Where progress and log notifications go (the request's SSE stream, or stdio). */
  emit: (message: JsonRpcNotification) => void
  request?: Request
  env?: unknown
  waitUntil?: (promise: Promise<unknown>) => void
  /** The authenticated principal, bound into requestState. */
  principal?: string
}

export type Method = (server: McpServer, call: Call) => Promise<JsonObject>

/**
 * Runs a handler that may ask for input, turning an unanswered request into an `input_required` result.
 * A retry (it carries requestState or inputResponses) has its state checked before the handler runs; a
 * first round opens its (empty) state only if the handler asks for something.
 */
export async function withInput(server: McpServer, call: Call, run: (ctx: RequestContext) => Promise<JsonObject>): Promise<JsonObject> {
  let round: Round | (() => Promise<Round>) | undefined
  if (call.profile.inputRequiredMethods.has(call.method)) {
    const open = () => openRound(server, call.method, call.params, call.principal)
    round = call.params.requestState !== undefined || call.params.inputResponses !== undefined ? await open() : open
  }
  const ctx = new Context(call, round)
  try {
    return await run(ctx)
  } catch (e) {
    const opened = ctx.openedRound
    if (e instanceof InputRequired && opened) return inputRequiredResult(server, opened, e.requests)
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

/** One page of a list result, with its caching hints: `{ [list]: items, nextCursor? }`. */
export function listPage(server: McpServer, call: Call, list: ListName, items: readonly unknown[]): JsonObject {
  const { items: shown, nextCursor } = page(items, list, call.params.cursor, server.options.pageSize ?? 100)
  const result: JsonObject = { [list]: shown }
  if (nextCursor !== undefined) result.nextCursor = nextCursor
  return cached(call, server.cachePolicy(list), result)
}
