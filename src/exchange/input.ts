import { bytesToBase64Url } from '../protocol/base64.js'
import { INTERNAL_ERROR } from '../protocol/constants.js'
import { invalidParams, McpError } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { ClientCapabilities, InputRequest } from '../protocol/types.js'
import { digest, rejected, type StatePayload } from './request-state.js'
import { ToolError } from '../server/tool-error.js'
import type { Call, Runtime, Session } from './types.js'

/**
 * Multi-round-trip requests (SEP-2322). A handler asks for input; if the answer is not in this request, the
 * handler is abandoned and the client gets an `input_required` result. The client retries with the answers
 * and the sealed requestState, and the handler runs again from the top: answers of earlier rounds come back
 * out of the requestState, so asking again for the same key returns at once.
 */
export class InputRequired {
  constructor(readonly requests: Record<string, InputRequest>) {}
}

export interface Round {
  /** This request's `inputResponses`. */
  readonly responses: JsonObject
  /**
   * Answers of earlier rounds (from the state) and those of this one used so far: what the next
   * requestState carries. Looked up first, so a key answered once keeps its answer.
   */
  readonly gathered: JsonObject
  readonly memo: JsonObject
  readonly method: string
  /** Digest of the request's own params, computed only when a state is checked or sealed. */
  readonly digest: () => Promise<string>
  readonly principal: string | undefined
  /** Which round of the request this is: 1 without a requestState. */
  readonly number: number
}

const IDENTITY_EXCLUDED = new Set(['_meta', 'inputResponses', 'requestState'])

/** Reads `inputResponses` and opens `requestState`, refusing state made for another request. */
export async function openRound(call: Call): Promise<Round> {
  const { method, params, principal, runtime } = call
  let memoised: Promise<string> | undefined
  const paramsDigest = () => (memoised ??= digest(Object.fromEntries(Object.entries(params).filter(([k]) => !IDENTITY_EXCLUDED.has(k)))))
  const responses = params.inputResponses
  if (responses !== undefined && !isObject(responses)) throw invalidParams('inputResponses must be an object keyed by input request')
  let state: StatePayload | undefined
  if (params.requestState !== undefined) {
    if (typeof params.requestState !== 'string') throw rejected('it must be a string')
    state = await runtime.requestState.open(params.requestState)
    if (state.n !== runtime.server.info.name || state.m !== method || state.d !== (await paramsDigest())) throw rejected('it was issued for a different request')
    if (state.p !== principal) throw rejected('it was issued to a different principal')
    // Last, once everything else holds: a state refused for another reason is not used up.
    if (runtime.usedStates && (typeof state.u !== 'string' || !(await runtime.usedStates.claim(state.u, state.x)))) {
      throw rejected('it was used already: each requestState is taken once, so retry from the first round')
    }
  }
  const number = state === undefined ? 1 : typeof state.r === 'number' ? state.r : 2
  call.watch?.round?.(number)
  return {
    responses: responses ?? {},
    gathered: { ...state?.a },
    memo: { ...state?.s },
    method,
    digest: paramsDigest,
    principal,
    number,
  }
}

/** Resolves every request from the round's answers, or throws InputRequired for the unanswered ones. */
export function answer(round: Round, requests: Record<string, InputRequest>, caps: ClientCapabilities, profile: Profile): JsonObject {
  const out: JsonObject = {}
  const missing: Record<string, InputRequest> = {}
  for (const [key, request] of Object.entries(requests)) {
    checkCapability(request, caps, profile)
    const value = Object.hasOwn(round.gathered, key) ? round.gathered[key] : Object.hasOwn(round.responses, key) ? round.responses[key] : undefined
    if (value === undefined) {
      missing[key] = request
      continue
    }
    if (!validResponse(request.method, value)) throw invalidParams(`inputResponses["${key}"] is not a valid ${request.method} result`)
    out[key] = value
    round.gathered[key] = value
  }
  if (Object.keys(missing).length > 0) throw new InputRequired(missing)
  return out
}

export async function inputRequiredResult(runtime: Runtime, round: Round, requests: Record<string, InputRequest>): Promise<JsonObject> {
  const requestState = await runtime.requestState.seal({
    n: runtime.server.info.name,
    m: round.method,
    d: await round.digest(),
    x: Date.now() + runtime.requestStateTtlMs,
    ...(round.principal === undefined ? {} : { p: round.principal }),
    ...(runtime.usedStates ? { u: bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16))) } : {}),
    a: round.gathered,
    s: round.memo,
    r: round.number + 1,
  })
  return { resultType: 'input_required', inputRequests: requests, requestState }
}

/**
 * A 2025 session's client is asked at once, on the request's own stream (Session.ask), and its answers are
 * checked as a retry's inputResponses would be: the handler gets the same values in either era.
 */
export async function askSession(call: Call, session: Session, requests: Record<string, InputRequest>): Promise<JsonObject> {
  const entries = Object.entries(requests)
  for (const [, request] of entries) checkCapability(request, call.client.capabilities, call.profile)
  const answers = await session.ask(entries.map(([, request]) => request), call.transport.cancel.signal)
  const out: JsonObject = {}
  entries.forEach(([key, request], i) => {
    if (!validResponse(request.method, answers[i])) throw new McpError(INTERNAL_ERROR, `The client's answer to ${request.method} is not a valid result`)
    out[key] = answers[i]
  })
  return out
}

function checkCapability(request: InputRequest, caps: ClientCapabilities, profile: Profile): void {
  const required = requiredCapability(request, caps)
  if (required) {
    throw new McpError(profile.missingCapabilityCode, `The client did not declare the capability this request needs (${request.method})`,
      { requiredCapabilities: required })
  }
}

/** The capability a client must have declared in this request for the server to ask it this, if missing. */
function requiredCapability(request: InputRequest, caps: ClientCapabilities): ClientCapabilities | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const e = caps.elicitation
      if (request.params.mode === 'url') return isObject(e) && isObject(e.url) ? undefined : { elicitation: { url: {} } }
      // `elicitation: {}` means form mode only (schema: ClientCapabilities.elicitation).
      const formOk = isObject(e) && (isObject(e.form) || (!('form' in e) && !('url' in e)))
      return formOk ? undefined : { elicitation: { form: {} } }
    }
    case 'sampling/createMessage': {
      const s = caps.sampling
      if (!isObject(s)) return { sampling: {} }
      if (request.params.tools !== undefined && !isObject(s.tools)) return { sampling: { tools: {} } }
      const ctx = request.params.includeContext
      if (ctx !== undefined && ctx !== 'none' && !isObject(s.context)) return { sampling: { context: {} } }
      return undefined
    }
    case 'roots/list':
      return isObject(caps.roots) ? undefined : { roots: {} }
    default:
      throw new Error(`cannot ask the client for ${(request as { method: string }).method}`)
  }
}

export function validResponse(method: InputRequest['method'], value: unknown): boolean {
  if (!isObject(value)) return false
  switch (method) {
    case 'elicitation/create':
      return ['accept', 'decline', 'cancel'].includes(value.action as string) && (value.content === undefined || isObject(value.content))
    case 'sampling/createMessage':
      return typeof value.role === 'string' && typeof value.model === 'string' && (isObject(value.content) || Array.isArray(value.content))
    case 'roots/list':
      return Array.isArray(value.roots) && value.roots.every((r) => isObject(r) && typeof r.uri === 'string')
  }
}

/**
 * A 2025 client without a session cannot be asked: a tool tells the model (an isError result), other methods
 * fail with -32603.
 */
export function legacyInputError(profile: Profile, method: string): Error {
  const message = `This request needs input from the client, which requires protocol 2026-07-28 or a 2025 session (initialize over HTTP); this client speaks ${profile.version} without one`
  return method === 'tools/call' ? new ToolError(message) : new McpError(INTERNAL_ERROR, message)
}
