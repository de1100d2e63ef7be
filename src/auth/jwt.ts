import { decodeJwt, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import { fixedKeys, remoteKeys, type KeySet } from './keys.js'
import { InvalidToken, type TokenVerifier, type Verified } from './options.js'

export interface JwtOptions {
  /** The issuer (`iss`) a token must name, or several. */
  issuer: string | readonly string[]
  /**
   * Where the issuer publishes its keys. Default: the `jwks_uri` of its metadata (RFC 8414, then OpenID
   * discovery), fetched on first use. Only with one issuer.
   */
  jwksUri?: string | undefined
  /** Fixed keys instead of fetched ones (a Worker cannot fetch its own hostname). */
  jwks?: JSONWebKeySet | undefined
  /** Signature algorithms accepted (default: the asymmetric ones; never `none` or an HMAC). */
  algorithms?: readonly string[] | undefined
  /** Leeway for `exp` and `nbf`, in seconds (default 30). */
  clockToleranceSec?: number | undefined
  /** The `typ` header a token must have, such as `at+jwt` (RFC 9068); default: any. */
  typ?: string | undefined
  /** How long fetched keys are trusted before they are fetched again (default 1 hour). */
  cacheMaxAgeMs?: number | undefined
  /** The fetch for metadata and keys (a service binding, say). */
  fetch?: typeof fetch | undefined
  /**
   * How many verified tokens to remember (default 1000; 0 for none), each until it expires and for 5
   * minutes at most: a client's next request with the same token skips the signature check, which
   * otherwise costs more than the rest of a tools/call.
   */
  cachedTokens?: number | undefined
}

const REMEMBER_MS = 5 * 60_000

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']

/**
 * Key sets and issuer metadata in module scope, shared by every verifier of the process (or isolate):
 * Workers and Lambda make handlers far more often than keys change, and a key set fetched once serves
 * every request after. A set is fetched again at most every 30 s for a token its cached keys do not
 * verify (a rotation, new kid or same), one fetch at a time, and not at all during a back-off after a
 * failed fetch (src/auth/keys.ts).
 */
const keySets = new Map<string, KeySet>()
const jwksUris = new Map<string, Promise<string>>()

/**
 * A verifier of JWT access tokens signed with the issuer's published keys: signature (allow-listed
 * algorithms), issuer, expiry (`exp` required), and audience, always: `aud` (a string or an array) is
 * required and must name the configured resource exactly (an RFC 8707 `resource` claim is not an
 * audience, and is not read). A token must name a subject (`sub`) or a client (`client_id`, else `azp`):
 * who is asking. Its scopes are read from `scope` (space-separated) or `scp` (an array).
 *
 * @example
 * ```ts
 * import { bearerAuth, jwtVerifier, McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'notes', version: '1.0.0' })
 *   .tool('whoami', { description: 'Who the token is for' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody')
 *
 * await serve(server, {
 *   auth: bearerAuth({
 *     resource: 'https://mcp.example.com/mcp',   // the audience tokens must name
 *     verify: jwtVerifier({ issuer: 'https://auth.example.com' }),   // keys from the issuer's metadata
 *   }),
 *   allowedHosts: ['mcp.example.com'],
 * })
 * ```
 */
export function jwtVerifier(options: JwtOptions): TokenVerifier {
  const issuers = typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer]
  if (issuers.length === 0 || issuers.some((i) => typeof i !== 'string' || i === '')) throw new Error('jwtVerifier: issuer must name at least one issuer')
  if (options.jwksUri && issuers.length > 1) throw new Error('jwtVerifier: jwksUri names the keys of one issuer; with several, each one\'s are discovered')
  const algorithms = [...(options.algorithms ?? ASYMMETRIC)]
  if (algorithms.some((a) => a === 'none' || a.startsWith('HS'))) throw new Error('jwtVerifier: algorithms must be asymmetric (none and HMAC would let anyone who has the public key sign)')
  const doFetch = options.fetch ?? fetch
  const maxAge = options.cacheMaxAgeMs ?? 3_600_000
  const fixed = options.jwks && fixedKeys(options.jwks)
  const tolerance = options.clockToleranceSec ?? 30
  const remembered = new Map<string, { verified: Verified; until: number }>()
  const capacity = options.cachedTokens ?? 1000

  const keysOf = async (issuer: string): Promise<KeySet> => {
    if (fixed) return fixed
    const uri = options.jwksUri ?? (await discoverJwksUri(issuer, doFetch))
    let set = keySets.get(uri)
    if (!set) keySets.set(uri, (set = remoteKeys(uri, maxAge, doFetch)))
    return set
  }

  const verify = async (token: string, context: { resource: string }): Promise<Verified> => {
    // The same token checks out the same against the same keys until it expires: no need to check it twice.
    const key = `${context.resource} ${token}`
    const known = remembered.get(key)
    if (known && known.until > Date.now()) return known.verified
    if (known) remembered.delete(key)
    const verified = await check(token, context.resource)
    if (capacity > 0) {
      if (remembered.size >= capacity) remembered.delete(remembered.keys().next().value!)
      remembered.set(key, { verified, until: Math.min((verified.expiresAt! + tolerance) * 1000, Date.now() + REMEMBER_MS) })
    }
    return verified
  }

  const check = async (token: string, resource: string): Promise<Verified> => {
    let claimed: JWTPayload
    try {
      claimed = decodeJwt(token)
    } catch {
      throw new InvalidToken('The token is not a JWT')
    }
    // The issuer picks the keys; the signature check below makes sure it was not made up.
    if (typeof claimed.iss !== 'string' || !issuers.includes(claimed.iss)) throw new InvalidToken('The token is from an issuer this server does not trust')
    const keys = await keysOf(claimed.iss)
    const verifyWith = async (getKey: JWTVerifyGetKey) => (await jwtVerify(token, getKey, {
      issuer: issuers, algorithms, clockTolerance: tolerance, requiredClaims: ['exp'],
      ...(options.typ ? { typ: options.typ } : {}),
    })).payload
    let payload: JWTPayload
    try {
      payload = await verifyWith(await keys.current())
    } catch (e) {
      // The issuer may have published a key since the set was fetched, under a new kid or the same one.
      if (!(e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWSSignatureVerificationFailed) || !(await keys.refresh())) throw tokenProblem(e)
      payload = await verifyWith(await keys.current()).catch((again: unknown) => { throw tokenProblem(again) })
    }
    // The audience decides: a token for another server is not for this one, whatever else it names.
    if (!names(payload.aud, resource)) throw new InvalidToken('The token was not issued for this server (audience)')
    return identity(payload)
  }
  return Object.assign(verify, { issuers })
}

/** Whether a claim (a string or an array of strings) names `resource`. */
const names = (claim: unknown, resource: string) => claim === resource || (Array.isArray(claim) && claim.includes(resource))

/** A claim's value when it is a non-empty string: an empty or non-string one names nobody. */
const text = (claim: unknown) => (typeof claim === 'string' && claim !== '' ? claim : undefined)

/** Who the token is for; refused when it names no one, since then there is nothing to bind state to. */
function identity(payload: JWTPayload): Verified {
  if (payload.sub !== undefined && text(payload.sub) === undefined) throw new InvalidToken("The token's sub claim is not acceptable")
  const subject = text(payload.sub)
  const clientId = text(payload.client_id) ?? text(payload.azp)
  if (subject === undefined && clientId === undefined) throw new InvalidToken('The token names neither a subject (sub) nor a client (client_id or azp)')
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean)
    : Array.isArray(payload.scp) ? payload.scp.filter((s): s is string => typeof s === 'string') : []
  return { subject, issuer: payload.iss, clientId, scopes, expiresAt: payload.exp, claims: payload }
}

/**
 * A failure of the token (an InvalidToken, with what is wrong), or of the server's side (keys unreachable
 * or malformed): thrown on as it is, to be answered 503 rather than blamed on the client.
 */
function tokenProblem(e: unknown): unknown {
  // A published key that cannot serve (a private one) is the issuer's fault, not the token's.
  if (!(e instanceof errors.JOSEError) || e instanceof errors.JWKSInvalid) return e
  if (e instanceof errors.JWTExpired) return new InvalidToken('The token has expired')
  if (e instanceof errors.JWKSNoMatchingKey || e instanceof errors.JWSSignatureVerificationFailed) return new InvalidToken('The token signature is not valid')
  if (e instanceof errors.JOSEAlgNotAllowed) return new InvalidToken('The token is signed with an algorithm this server does not accept')
  if (e instanceof errors.JWTClaimValidationFailed) return new InvalidToken(`The token's ${e.claim} claim is not acceptable`)
  return new InvalidToken('The token is not a valid JWT')
}

/**
 * The issuer's `jwks_uri`, from its RFC 8414 metadata (path inserted after the well-known prefix) or,
 * failing that, its OpenID configuration; the metadata must name the same issuer. Cached per issuer; a
 * failed lookup is forgotten after 30 s, so that an outage is not hammered and not remembered for long.
 */
function discoverJwksUri(issuer: string, doFetch: typeof fetch): Promise<string> {
  let found = jwksUris.get(issuer)
  if (!found) {
    found = lookUp(issuer, doFetch)
    jwksUris.set(issuer, found)
    found.catch(() => setTimeout(() => jwksUris.get(issuer) === found && jwksUris.delete(issuer), 30_000))
  }
  return found
}

async function lookUp(issuer: string, doFetch: typeof fetch): Promise<string> {
  const url = new URL(issuer)
  const path = url.pathname === '/' ? '' : url.pathname
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`]
  const problems: string[] = []
  for (const candidate of candidates) {
    try {
      const response = await doFetch(candidate, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) })
      if (!response.ok) {
        problems.push(`${candidate}: HTTP ${response.status}`)
        continue
      }
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown }
      if (metadata.issuer !== issuer) throw new Error(`it names issuer ${String(metadata.issuer)}`)
      if (typeof metadata.jwks_uri !== 'string') throw new Error('it has no jwks_uri')
      return metadata.jwks_uri
    } catch (e) {
      problems.push(`${candidate}: ${(e as Error).message}`)
    }
  }
  throw new Error(`mcp-edge: found no keys of issuer ${issuer} (${problems.join('; ')})`)
}
