/**
 * A local authorization server of the tests' own, on loopback: RFC 8414 metadata and a JWKS over HTTP, and
 * access tokens signed with its key (RS256, `typ: at+jwt`, as the unmerged conformance scenario
 * auth-token-audience-validation mints them), plus the forgeries a resource server must refuse.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from 'jose'

export interface AuthServer {
  readonly issuer: string
  readonly jwksUri: string
  /** How many times its key set was fetched. */
  readonly jwksFetches: number
  /** A token it signs for `audience` (omit with `aud: undefined` in claims); claims override the defaults. */
  token(audience: string, claims?: Record<string, unknown>, options?: { kid?: string; expiresInSec?: number }): Promise<string>
  /** Forgeries: signed by a key it does not publish but under its key id (or `kid`); unsigned; HMAC keyed with its public key. */
  untrusted(audience: string, kid?: string): Promise<string>
  unsigned(audience: string): string
  hmacWithPublicKey(audience: string): Promise<string>
  /**
   * Publishes a new key with id `kid`, as a rotation does: beside the old one, or in its place when `kid`
   * is in use (a rotation that reuses the kid).
   */
  rotate(kid: string): Promise<void>
  /** While down, its key set answers 503 (fetches are still counted). */
  down: boolean
  close(): Promise<void>
}

export const KID = 'mcp-edge-test-as'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

export interface AuthServerOptions {
  /** The issuer its metadata names (default its own URL): another one is the mix-up a resource server must refuse. */
  metadataIssuer?: string
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<AuthServer> {
  const keys = new Map([[KID, await generateKeyPair('RS256', { extractable: true })]])
  const stranger = await generateKeyPair('RS256')
  let jwksFetches = 0
  let down = false
  const http = createServer(async (req, res) => {
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        issuer: options.metadataIssuer ?? base, jwks_uri: `${base}/jwks.json`, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`,
        response_types_supported: ['code'], code_challenge_methods_supported: ['S256'],
      }))
    } else if (req.url === '/jwks.json') {
      jwksFetches++
      if (down) return void res.writeHead(503).end()
      const published = await Promise.all([...keys].map(async ([kid, pair]) => ({ ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' })))
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published }))
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`

  const claimsFor = (audience: string, claims: Record<string, unknown>, expiresInSec: number): JWTPayload => {
    const now = Math.floor(Date.now() / 1000)
    return { iss: issuer, sub: 'user-1', client_id: 'test-client', aud: audience, iat: now, exp: now + expiresInSec, jti: crypto.randomUUID(), ...claims }
  }
  const sign = (payload: JWTPayload, key: CryptoKey, kid: string) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(key)

  return {
    issuer,
    jwksUri: `${issuer}/jwks.json`,
    get jwksFetches() {
      return jwksFetches
    },
    token: (audience, claims = {}, options = {}) => {
      const kid = options.kid ?? KID
      return sign(claimsFor(audience, claims, options.expiresInSec ?? 3600), keys.get(kid)!.privateKey, kid)
    },
    untrusted: (audience, kid = KID) => sign(claimsFor(audience, {}, 3600), stranger.privateKey, kid),
    unsigned: (audience) => `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url(claimsFor(audience, {}, 3600))}.`,
    async hmacWithPublicKey(audience) {
      // The classic confusion: a verifier that lets the token pick its algorithm would check this HMAC with
      // the published RSA key as the secret, and anyone can compute it.
      const secret = new TextEncoder().encode(await exportSPKI(keys.get(KID)!.publicKey))
      return new SignJWT(claimsFor(audience, {}, 3600)).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: KID }).sign(secret)
    },
    async rotate(kid) {
      keys.set(kid, await generateKeyPair('RS256', { extractable: true }))
    },
    get down() {
      return down
    },
    set down(value) {
      down = value
    },
    close: () => new Promise((r) => http.close(() => r())),
  }
}
