import type { AuthInfo } from '../server/context.js'
import { challengeResponse, type Refusal } from './challenge.js'
import { resourceMetadata, type ResourceMetadata } from './metadata.js'
import { InvalidToken, type AuthOptions, type Verified } from './options.js'

/** A request's verified identity: what the exchange core binds state to. */
export interface Identity {
  readonly auth: AuthInfo
  readonly principal: string
}

/** The resource-server side of one endpoint, prepared once from the options. */
export interface AuthGate {
  readonly metadata: ResourceMetadata
  /**
   * Who is asking, from the request's bearer token, or from `upstream` when the platform verified it
   * already; else the refusal to send (401, 400, 403 for the baseline scopes, 503).
   */
  authenticate(request: Request, env: unknown, upstream: AuthInfo | undefined): Promise<Identity | Response>
  /** 403 for an operation that needs `scopes` (its own; the baseline is added). */
  forbidden(scopes: readonly string[], description: string): Response
}

/** b64token (RFC 6750 §2.1): what may follow `Bearer `. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/
/** Longer tokens are refused unread: verifying one costs its length in parsing and hashing. */
const MAX_TOKEN_CHARS = 16_384
/** Leeway for an `expiresAt` in the past, as jwtVerifier's default clock tolerance. */
const EXPIRY_LEEWAY_SEC = 30

/** Authorization turned on: its options, and the gate the HTTP handler makes of them. */
export interface Authorization extends AuthOptions {
  /**
   * @internal The gate of one handler; `report` hands an error to its onError and returns the error id,
   * `refused` is told of every refusal (for telemetry).
   */
  gate(report: (error: unknown) => string, refused?: (refusal: Refusal) => void): AuthGate
}

const issuersOf = (options: AuthOptions) => options.authorizationServers ?? options.verify?.issuers ?? []

/**
 * Authorization as an OAuth 2.1 resource server, for the `auth` option of a runtime entry: bearer tokens
 * checked by `verify` (jwtVerifier or your own), the protected-resource metadata served (RFC 9728).
 *
 * @example
 * ```ts
 * import { bearerAuth, createFetchHandler, jwtVerifier, McpServer } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'private', version: '1.0.0' }).tool('whoami', { description: 'Who asks' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody')
 * export const handler = createFetchHandler(server, {
 *   auth: bearerAuth({ resource: 'https://mcp.example.com/mcp', verify: jwtVerifier({ issuer: 'https://auth.example.com' }) }),
 * })
 * ```
 */
export function bearerAuth(options: AuthOptions): Authorization {
  // Checked now, so that a deployment without one fails at start-up.
  if (issuersOf(options).length === 0) throw new Error('auth.authorizationServers must name at least one authorization server (RFC 9728)')
  return { ...options, gate: (report, refused) => authGate(options, report, refused) }
}

function authGate(options: AuthOptions, report: (error: unknown) => string, refused?: (refusal: Refusal) => void): AuthGate {
  const issuers = issuersOf(options)
  const metadata = resourceMetadata(options, issuers)
  const baseline = options.scopes ?? []
  const implies = impliedBy(options.scopeImplies)
  const refuse = (refusal: Refusal) => {
    refused?.(refusal)
    return challengeResponse(refusal, metadata.url)
  }

  const identify = (found: Verified): Identity | Response => {
    const { subject, issuer, clientId } = found
    const principal = subject ? (issuer ? `${issuer}|${subject}` : subject) : clientId ? `client:${clientId}` : undefined
    if (principal === undefined) {
      const errorId = report(new Error('the token verifier returned an identity with neither subject nor clientId: nothing to bind state to'))
      return refuse({ status: 503, error: 'temporarily_unavailable', description: `Authorization failed on the server (error id ${errorId})` })
    }
    if (found.expiresAt !== undefined && found.expiresAt < Date.now() / 1000 - EXPIRY_LEEWAY_SEC) {
      return refuse({ status: 401, error: 'invalid_token', description: 'The token has expired', scopes: baseline })
    }
    const auth: AuthInfo = { ...found, scopes: withImplied(found.scopes ?? [], implies) }
    const missing = baseline.filter((s) => !auth.scopes.includes(s))
    if (missing.length > 0) return refuse({ status: 403, error: 'insufficient_scope', description: 'This server needs more scopes than the token has', scopes: baseline })
    return { auth, principal }
  }

  return {
    metadata,
    async authenticate(request, env, upstream) {
      if (upstream) return identify(upstream)
      const header = request.headers.get('authorization')
      const [scheme, token, extra] = header?.trim().split(/ +/) ?? []
      // No credentials, or ones of another kind: the client is told where to get a token, not that it erred.
      if (!header || scheme!.toLowerCase() !== 'bearer') {
        return refuse({ status: 401, description: 'This server needs an access token, sent as Authorization: Bearer <token>', scopes: baseline })
      }
      if (!token || extra !== undefined || !B64TOKEN.test(token)) {
        return refuse({ status: 400, error: 'invalid_request', description: 'The Authorization header is malformed: expected Bearer <token>' })
      }
      if (!options.verify || token.length > MAX_TOKEN_CHARS) {
        return refuse({ status: 401, error: 'invalid_token', description: 'The token is not acceptable', scopes: baseline })
      }
      let found: Verified | undefined
      try {
        found = await options.verify(token, { resource: options.resource, request, env })
      } catch (e) {
        if (e instanceof InvalidToken) return refuse({ status: 401, error: 'invalid_token', description: e.message, scopes: baseline })
        const errorId = report(e)
        return refuse({ status: 503, error: 'temporarily_unavailable', description: `Tokens cannot be checked right now (error id ${errorId})` })
      }
      if (!found) return refuse({ status: 401, error: 'invalid_token', description: 'The token is not acceptable', scopes: baseline })
      return identify(found)
    },
    forbidden: (scopes, description) => refuse({ status: 403, error: 'insufficient_scope', description, scopes: [...new Set([...baseline, ...scopes])] }),
  }
}

/**
 * scopeImplies as a map of its own entries: scopes come from tokens, and a scope named `constructor` or
 * `__proto__` must find nothing, not a member of Object.prototype.
 */
const impliedBy = (option: AuthOptions['scopeImplies']): ReadonlyMap<string, readonly string[]> => new Map(Object.entries(option ?? {}))

/** The granted scopes with every scope they imply, transitively. */
function withImplied(granted: readonly string[], implies: ReadonlyMap<string, readonly string[]>): readonly string[] {
  const all = new Set(granted)
  for (const scope of all) for (const implied of implies.get(scope) ?? []) all.add(implied)
  return [...all]
}
