import { bytesToBase64Url } from '../../protocol/base64.js'
import { invalidParams } from '../../protocol/errors.js'
import { isObject, type JsonObject } from '../../protocol/jsonrpc.js'
import type { ClientCapabilities, Implementation } from '../../protocol/types.js'
import type { Runtime } from '../../exchange/types.js'

/**
 * A 2025 session's id (`Mcp-Session-Id`) is its own proof: sealed with the requestState keys every instance
 * shares, so any instance verifies it without asking anyone, and it carries what the client declared in
 * `initialize`, which its later requests do not repeat. Only what changes during the session (log level,
 * subscriptions, its end) is kept in the store (./records.ts).
 */
export interface SessionClaims {
  /** 128 random bits: what names the session in the store and on the backplane. */
  readonly key: string
  readonly principal: string | undefined
  /** ms since the epoch; past it, the session is unknown (404) and the client initializes again. */
  readonly expiresAt: number
  /**
   * ms since the epoch; refused when the store's session epoch began after it (./epoch.ts). 0 in ids made
   * before ids carried it.
   */
  readonly issuedAt?: number | undefined
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
}

/** The method a session is sealed for: no request has it, so a session id never opens as a requestState. */
const SEALED_FOR = 'mcp-edge/session'
/** What of the client's capabilities a server asks about (input requests); the rest is not carried. */
const KEPT_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const
/** Characters of capabilities and client info a session id carries at most: it travels with every request. */
const MAX_CARRIED = 2048

/**
 * The id for a session that `initialize` (its params) opens, in the store's session `epoch` (its start); -32602
 * when what it declared is too large to carry.
 */
export async function issueSession(runtime: Runtime, params: JsonObject, principal: string | undefined, ttlMs: number, epoch: number | undefined): Promise<string> {
  const declared = isObject(params.capabilities) ? params.capabilities : {}
  const capabilities: JsonObject = {}
  for (const name of KEPT_CAPABILITIES) if (declared[name] !== undefined) capabilities[name] = declared[name]
  const client: JsonObject = { capabilities }
  if (isObject(params.clientInfo)) client.info = params.clientInfo
  if (JSON.stringify(client).length > MAX_CARRIED) throw invalidParams(`capabilities and clientInfo take more than ${MAX_CARRIED} characters of JSON`)
  return runtime.requestState.seal({
    n: runtime.server.info.name,
    m: SEALED_FOR,
    d: bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16))),
    x: Date.now() + ttlMs,
    ...(principal === undefined ? {} : { p: principal }),
    a: client,
    // A requestState's memos; a session has none, so when it was issued goes there: never before the epoch it
    // was issued in, whichever clock (Redis' own) set that.
    s: { i: Math.max(Date.now(), epoch ?? 0) },
  })
}

/** The session an id names, if this server sealed it for `principal` and it has not expired. */
export async function openSession(runtime: Runtime, id: string, principal: string | undefined): Promise<SessionClaims | undefined> {
  let payload
  try {
    payload = await runtime.requestState.open(id)
  } catch {
    return undefined
  }
  if (payload.m !== SEALED_FOR || payload.n !== runtime.server.info.name || payload.p !== principal || !isObject(payload.a)) return undefined
  const client = payload.a as SessionClaims['client']
  return { key: payload.d, principal, expiresAt: payload.x, issuedAt: isObject(payload.s) && typeof payload.s.i === 'number' ? payload.s.i : 0, client }
}
