import { INTERNAL_ERROR, INVALID_REQUEST, META_SERVER_INFO } from '../protocol/constants.js'
import { InsufficientScope, invalidParams, McpError, methodNotFound } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcId, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { Answer, Call, RequestWatch, Runtime, Stage, Telemetry, Transport } from './types.js'
import { checkMethodHeaders, checkParamHeaders, type HeaderSource } from './headers.js'
import { requestNames } from './request-names.js'
import { spokenVersion } from './version.js'

export type { Answer, Stage } from './types.js'

/** Arguments nest at most this deep: deeper ones would overflow the stack of validators and digests. */
export const MAX_DEPTH = 64

/**
 * One request to its answer, the same for every transport. Validation runs once, in the order of the
 * conformance suite: `_meta` envelope and version (spokenVersion), nesting depth and extension `_meta`
 * keys, `Mcp-Method` and `Mcp-Name`, method known, what it works on (looked up once), `Mcp-Param-*`, OAuth
 * scopes, client capabilities; then the method runs, and its result is decorated for the version spoken.
 * Notifications before the result go to `transport.emit`. Never rejects: every failure is an Answer.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { Cancellation, classify, createRuntime, errorResponse, exchange, resultResponse } from 'mcp-edge/core'
 *
 * // A transport of your own: one JSON-RPC request in, its answer out.
 * const runtime = createRuntime(new McpServer({ name: 'echo', version: '1.0.0' })
 *   .tool('echo', { description: 'Echoes' }, () => 'echo'))
 *
 * export async function answer(line: string): Promise<unknown> {
 *   const incoming = classify(JSON.parse(line))
 *   if (incoming.kind !== 'request') return undefined
 *   const transport = { versionHeader: null, cancel: new Cancellation(), emit: (n: unknown) => console.error('notification', n) }
 *   const done = await exchange(runtime, incoming.message, transport)
 *   return done.ok ? done.result && resultResponse(done.id, done.result) : errorResponse(done.id, done.error)
 * }
 * ```
 */
export function exchange(runtime: Runtime, message: JsonRpcRequest, transport: Transport): Promise<Answer> {
  const { telemetry } = runtime
  const watch = telemetry && guarded(runtime, () => telemetry.request(message, transport, requestNames(runtime, message, transport)))
  if (!watch) return answer(runtime, message, transport, undefined)
  return watched(runtime, telemetry, watch, transport, watch.run(() => answer(runtime, message, transport, watch)))
}

/**
 * Tells the watch how the request ended. A function of its own, so that the callback's scope, alive until
 * then (hours, for a listen stream), does not hold the request's message.
 */
function watched(runtime: Runtime, telemetry: Telemetry, watch: RequestWatch, transport: Transport, answered: Promise<Answer>): Promise<Answer> {
  return answered.then((done) => {
    guarded(runtime, () => watch.end(done))
    if (telemetry.flush && transport.waitUntil) {
      transport.waitUntil(telemetry.flush().catch((e: unknown) => void runtime.report(e, { during: 'telemetry' })))
    }
    return done
  })
}

/** Telemetry that fails is reported, never the request's failure. */
export function guarded<T>(runtime: Runtime, watch: () => T): T | undefined {
  try {
    return watch()
  } catch (e) {
    runtime.report(e, { during: 'telemetry' })
    return undefined
  }
}

function answer(runtime: Runtime, message: JsonRpcRequest, transport: Transport, watch: RequestWatch | undefined): Promise<Answer> {
  const { id } = message
  let profile: Profile | undefined
  let stage: Stage = 'envelope'
  let call: Call | undefined
  try {
    const spoken = spokenVersion(runtime.server, message, transport.versionHeader)
    profile = spoken.profile
    const params = message.params ?? {}
    if (tooDeep(params, MAX_DEPTH)) throw invalidParams(`params nest deeper than ${MAX_DEPTH} levels`)
    const envelope = spoken.envelope
    if (envelope) checkExtensionMeta(runtime, envelope.meta)

    const found = runtime.method(profile.era, message.method)
    const descriptor = found && (!found.served || found.served(runtime)) ? found : undefined
    const header = profile.era === 'modern' && transport.header ? (transport as HeaderSource) : undefined
    const nameParam = typeof descriptor?.nameParam === 'function' ? descriptor.nameParam(profile) : descriptor?.nameParam
    if (header) checkMethodHeaders(header, message.method, params, nameParam, profile)
    stage = 'route'
    if (!descriptor) throw methodNotFound(message.method)
    if (descriptor.stream && transport.buffered) {
      throw new McpError(INVALID_REQUEST, `${message.method} streams its answer, and this endpoint delivers responses whole; serve it where responses stream (a Lambda function URL with InvokeMode RESPONSE_STREAM, say)`)
    }

    call = {
      id, method: message.method, params, profile, runtime, transport, principal: transport.principal, auth: transport.auth,
      client: envelope ? { info: envelope.clientInfo, capabilities: envelope.clientCapabilities } : transport.session?.client ?? { capabilities: {} },
      logLevel: envelope ? envelope.logLevel : transport.session?.logLevel,
      progressToken: envelope ? envelope.progressToken : legacyProgressToken(params),
      watch,
    }
    stage = 'method'
    const target = descriptor.target?.(call)
    if (header && descriptor.paramHeaders) {
      stage = 'envelope'
      const { headers, args } = descriptor.paramHeaders(target)
      checkParamHeaders(header, headers, args, profile)
    }
    stage = 'route'
    const scopes = descriptor.scopes?.(target)
    if (scopes?.some((s) => !call!.auth?.scopes.includes(s))) {
      const named = params.name ?? params.uri ?? (isObject(params.ref) ? params.ref.name ?? params.ref.uri : undefined)
      throw new InsufficientScope(scopes, `${message.method} of ${String(named)}`)
    }
    const missing = descriptor.clientNeeds?.(call, target)
    if (missing) {
      throw new McpError(profile.missingCapabilityCode, `${message.method} needs client capabilities this request did not declare`,
        { requiredCapabilities: missing })
    }
    stage = 'method'
    // A stream has a lifetime of its own (listen.maxLifetimeMs); anything else answers within the time limit.
    const running = descriptor.run(call, target)
    return settle(runtime, profile, id, descriptor.method, descriptor.stream ? running : runtime.deadlines.limit(running, () => transport.cancel.abort(new Error('the request ran past its time limit'))))
  } catch (e) {
    return Promise.resolve({ ok: false, id, profile, stage, error: asMcpError(runtime, e, call ?? message) })
  }
}

/**
 * The method's outcome as an Answer. Chained, where an async `exchange` would await: a listen stream's
 * method runs for hours, and a suspended async function keeps its whole frame (some 700 bytes) alive all
 * that time. `method` is the descriptor's name, not the request's own copy of that string, for the same reason.
 */
function settle(runtime: Runtime, profile: Profile, id: JsonRpcId, method: string, running: Promise<JsonObject | undefined>): Promise<Answer> {
  return running.then(
    (result) => ({ ok: true, id, profile, result: result && decorate(runtime, profile, result) }),
    (e: unknown) => ({ ok: false, id, profile, stage: 'method', error: asMcpError(runtime, e, { id, method }) }),
  )
}

/** McpErrors travel as they are; anything else is reported and answered without its message. */
function asMcpError(runtime: Runtime, e: unknown, call: { method: string; id: JsonRpcId }): McpError {
  if (e instanceof McpError) return e
  const errorId = runtime.report(e, { method: call.method, requestId: call.id })
  return new McpError(INTERNAL_ERROR, `Internal error (error id ${errorId})`)
}

/**
 * Results are fresh objects made for this request (methods copy what handlers return), so they are
 * decorated in place: `resultType`, and the server's identity in `_meta` where the version wants it.
 */
function decorate(runtime: Runtime, profile: Profile, result: JsonObject): JsonObject {
  if (profile.era === 'legacy') return result
  result.resultType ??= 'complete'
  if (profile.serverInfoInResultMeta) {
    const { server } = runtime
    result._meta = isObject(result._meta) ? { ...result._meta, [META_SERVER_INFO]: server.info } : server.infoMeta
  }
  return result
}

function checkExtensionMeta(runtime: Runtime, meta: JsonObject): void {
  for (const extension of runtime.extensions) {
    for (const [key, check] of Object.entries(extension.meta ?? {})) {
      if (meta[key] === undefined) continue
      const problem = check(meta[key])
      if (problem !== undefined) throw invalidParams(`Invalid request envelope: _meta["${key}"] ${problem}`)
    }
  }
}

/** A 2025-era request has no envelope: its progress token is read from `_meta` as it is. */
function legacyProgressToken(params: JsonObject): string | number | undefined {
  const token = isObject(params._meta) ? params._meta.progressToken : undefined
  return typeof token === 'string' || typeof token === 'number' ? token : undefined
}

/**
 * Whether a JSON value nests deeper than `limit` levels (the value itself is the first). It recurses at most
 * `limit` + 1 frames, whatever the input, so hostile nesting cannot overflow the stack.
 */
export function tooDeep(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (limit === 0) return true
  if (Array.isArray(value)) {
    for (const item of value) if (tooDeep(item, limit - 1)) return true
    return false
  }
  for (const key in value) if (tooDeep((value as Record<string, unknown>)[key], limit - 1)) return true
  return false
}
