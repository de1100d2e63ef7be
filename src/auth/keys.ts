import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'

/** An issuer's signing keys, as jwtVerifier checks signatures with them. */
export interface KeySet {
  /** The keys to verify with now: the cached set while it is fresh, else a fetched one. */
  current(): Promise<JWTVerifyGetKey>
  /**
   * Fetches the set again for a token the cached keys do not verify (an unknown kid, or a key replaced
   * under the same kid): resolves to whether it did. Never more than once per cooldown, so that forged
   * tokens cannot make the server hammer the issuer.
   */
  refresh(): Promise<boolean>
}

/** At most one refetch per endpoint in this long, whatever tokens arrive. */
const COOLDOWN_MS = 30_000
/** After a failed fetch, none for this long, doubled at each further failure up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1_000
const MAX_BACKOFF_MS = 30_000
const TIMEOUT_MS = 5_000

/**
 * On Workers a promise of one request's fetch may not be awaited by another (its I/O belongs to the
 * first request, and dies with it): there each request fetches on its own, and only the cooldown and
 * back-off keep the count down.
 */
const SHARE_FETCHES = typeof navigator === 'undefined' || navigator.userAgent !== 'Cloudflare-Workers'

export const fixedKeys = (jwks: JSONWebKeySet): KeySet => {
  const keys = createLocalJWKSet(jwks)
  return { current: async () => keys, refresh: async () => false }
}

/**
 * The key set published at `uri`, cached for `maxAgeMs`. While the endpoint fails, it is not asked again
 * before a back-off (1 s, growing to 30 s) has passed: requests in between get the last failure (a 503),
 * not a fetch each.
 */
export function remoteKeys(uri: string, maxAgeMs: number, doFetch: typeof fetch): KeySet {
  let keys: JWTVerifyGetKey | undefined
  let fetchedAt = -Infinity
  let triedAt = -Infinity
  let failures = 0
  let retryAt = -Infinity
  let failure: unknown
  let pending: Promise<JWTVerifyGetKey> | undefined

  const fetchNow = (): Promise<JWTVerifyGetKey> => {
    if (pending && SHARE_FETCHES) return pending
    triedAt = Date.now()
    const attempt = fetchKeys(uri, doFetch).then((fetched) => {
      keys = fetched
      fetchedAt = Date.now()
      failures = 0
      retryAt = -Infinity
      return fetched
    }, (e: unknown) => {
      failures++
      retryAt = Date.now() + backoff(failures)
      failure = e
      throw e
    }).finally(() => {
      if (pending === attempt) pending = undefined
    })
    pending = attempt
    return attempt
  }

  return {
    async current() {
      if (keys && Date.now() < fetchedAt + maxAgeMs) return keys
      if (Date.now() < retryAt && !(pending && SHARE_FETCHES)) throw failure
      return fetchNow()
    },
    async refresh() {
      if (!(pending && SHARE_FETCHES) && Date.now() < Math.max(triedAt + COOLDOWN_MS, retryAt)) return false
      await fetchNow()
      return true
    },
  }
}

const backoff = (failures: number) => Math.min(FIRST_BACKOFF_MS * 2 ** (failures - 1), MAX_BACKOFF_MS)

/** One fetch of a JWKS: 200 and a key set, within the timeout, else an error of the server's side. */
async function fetchKeys(uri: string, doFetch: typeof fetch): Promise<JWTVerifyGetKey> {
  // No redirects followed: the keys are where the configuration or the issuer's metadata says.
  const response = await doFetch(uri, {
    headers: { accept: 'application/json, application/jwk-set+json' }, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS),
  })
  if (response.status !== 200) {
    await response.body?.cancel()
    throw new Error(`mcp-edge: the key set at ${uri} answered HTTP ${response.status}`)
  }
  let jwks: JSONWebKeySet
  try {
    jwks = await response.json() as JSONWebKeySet
  } catch (e) {
    throw new Error(`mcp-edge: the key set at ${uri} is not JSON (${(e as Error).message})`)
  }
  try {
    return createLocalJWKSet(jwks)
  } catch (e) {
    throw new Error(`mcp-edge: the key set at ${uri} is malformed (${(e as Error).message})`)
  }
}
