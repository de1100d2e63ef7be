import { invalidParams } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { CachePolicy } from '../protocol/types.js'
import type { ListName } from '../server/definitions.js'
import type { Entries, Kind } from '../server/server.js'
import { Context } from './context.js'
import { page } from './cursor.js'
import { InputRequired, inputRequiredResult, openRound, type Round } from './input.js'
import type { Call } from './types.js'

/**
 * Runs a handler that may ask for input, turning an unanswered request into an `input_required` result.
 * A retry (it carries requestState or inputResponses) has its state checked before the handler runs; a
 * first round opens its (empty) state only if the handler asks for something.
 */
export async function withInput(call: Call, run: (ctx: Context) => Promise<JsonObject>): Promise<JsonObject> {
  let round: Round | (() => Promise<Round>) | undefined
  if (call.profile.inputRequiredMethods.has(call.method)) {
    const open = () => openRound(call)
    round = call.params.requestState !== undefined || call.params.inputResponses !== undefined ? await open() : open
  }
  const ctx = new Context(call, round)
  try {
    return await run(ctx)
  } catch (e) {
    const opened = ctx.openedRound
    if (e instanceof InputRequired && opened) return inputRequiredResult(call.runtime, opened, e.requests)
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

/** The entry `params.name` names, if the asker may see it; otherwise -32602 `Unknown <kind>: <name>`. */
export function namedEntry<K extends Kind>(call: Call, kind: K): { name: string; entry: Entries[K] } {
  const name = requireString(call.params, 'name')
  const entry = call.runtime.server.find(kind, name, call)
  if (!entry) throw invalidParams(`Unknown ${kind}: ${name}`)
  return { name, entry }
}

export function argumentsOf(params: JsonObject): JsonObject {
  const args = params.arguments ?? {}
  if (!isObject(args)) throw invalidParams('params.arguments must be an object')
  return args
}

/** One page of a list result, with its caching hints: `{ [list]: items, nextCursor? }`. */
export function listPage(call: Call, list: ListName, items: readonly unknown[]): JsonObject {
  const { server } = call.runtime
  const { items: shown, nextCursor } = page(items, list, call.params.cursor, server.options.pageSize ?? 100)
  const result: JsonObject = { [list]: shown }
  if (nextCursor !== undefined) result.nextCursor = nextCursor
  return cached(call, server.cachePolicy(list), result)
}

/** The wire list of a kind as the caller sees it, without what it lacks scopes for where the runtime hides that. */
export const listed = <K extends Kind>(call: Call, kind: K) => call.runtime.server.listed(kind, call, call.runtime.hideOutOfScope)
