/**
 * Authorization headers for the fuzz (test/fuzz/requests.ts) against a handler with `auth` on, verified by
 * jwtVerifier against a local authorization server (test/helpers/auth-server.ts; real keys over HTTP): no
 * header, garbage, other schemes, random bytes, malformed JWTs, JWTs with bad signatures or the wrong alg,
 * huge ones, and valid tokens (most often, so that the rest of the request is fuzzed too). Every answer must
 * be a 4xx or a success: never a 5xx, never a hang.
 */
import fc from 'fast-check'
import { bearerAuth, jwtVerifier, type Authorization } from '../../src/index.js'
import { KID, startAuthServer } from '../helpers/auth-server.js'

/** The fuzz target's canonical URL: the audience valid tokens name. */
export const RESOURCE = 'http://127.0.0.1/mcp'

/** One Authorization header (undefined: none), and what kind of header it is, for the tallies. */
export interface AuthHeader {
  readonly kind: string
  readonly value: string | undefined
}

export interface AuthMix {
  readonly auth: Authorization
  readonly headers: fc.Arbitrary<AuthHeader>
  /** A header that is always accepted, for the check that the server still answers. */
  readonly valid: string
  /** How many times the key set was fetched: a handful for a whole run, whatever the tokens. */
  readonly jwksFetches: () => number
  close(): Promise<void>
}

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const bytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((b) => Buffer.from(b).toString('base64url'))

/** The server, the tokens it signed before the run (fast-check draws synchronously), and the mix of headers. */
export async function authorizationMix(): Promise<AuthMix> {
  const as = await startAuthServer()
  const day = { expiresInSec: 86_400 }
  const valid = await Promise.all([
    as.token(RESOURCE, { scope: 'mcp:read mcp:admin' }, day),
    as.token(RESOURCE, { scope: 'mcp:read' }, day),
    as.token(RESOURCE, { scope: 'constructor __proto__ toString mcp:admin' }, day),
    as.token(RESOURCE, { sub: undefined }, day),
    as.token('', { aud: ['https://other.example', RESOURCE], scp: ['mcp:admin', 'hasOwnProperty'] }, day),
    // Large but under the 16 KiB limit: verified in full.
    as.token(RESOURCE, { pad: 'x'.repeat(11_000) }, day),
  ])
  const refused = await Promise.all([
    as.token('https://other.example/mcp', { resource: RESOURCE }, day),
    as.token('', { aud: undefined, resource: RESOURCE }, day),
    as.token(RESOURCE, { sub: undefined, client_id: undefined }, day),
    as.token(RESOURCE, { sub: 42 }, day),
    as.token(RESOURCE, {}, { expiresInSec: -3600 }),
    as.token(RESOURCE, { iss: 'https://evil.example' }, day),
    as.untrusted(RESOURCE),
    as.untrusted(RESOURCE, 'unknown-kid'),
    as.hmacWithPublicKey(RESOURCE),
    Promise.resolve(as.unsigned(RESOURCE)),
  ])
  const parts = (token: string) => token.split('.') as [string, string, string]
  const claims = fc.record({
    iss: fc.constantFrom(as.issuer, 'https://evil.example', 7, ''),
    aud: fc.constantFrom(RESOURCE, [RESOURCE], 'x', {}, null),
    sub: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor'), fc.integer()),
    client_id: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
    exp: fc.oneof(fc.integer(), fc.constant(Math.floor(Date.now() / 1000) + 86_400), fc.string({ maxLength: 5 })),
    nbf: fc.integer(),
    scope: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('constructor', '__proto__ toString', 'mcp:admin'), fc.array(fc.string())),
    scp: fc.jsonValue({ maxDepth: 1 }),
    resource: fc.constant(RESOURCE),
  }, { requiredKeys: [] })
  const header = fc.record({
    alg: fc.constantFrom('RS256', 'RS512', 'PS256', 'ES256', 'EdDSA', 'HS256', 'none', '', 'rs256', 1),
    kid: fc.oneof(fc.constant(KID), fc.string({ maxLength: 20 }), fc.constant(null)),
    typ: fc.constantFrom('at+jwt', 'JWT', 7),
    crit: fc.constantFrom(['exp'], ['b64'], [], 'x'),
    b64: fc.boolean(),
    jku: fc.constant('http://127.0.0.1:1/keys'),
  }, { requiredKeys: [] })
  const segment = fc.oneof(bytes(48), fc.string({ maxLength: 24 }), fc.jsonValue({ maxDepth: 2 }).map(b64url))
  const bearer = (token: fc.Arbitrary<string>) => token.map((t) => `Bearer ${t}`)
  const kinds: Record<string, fc.Arbitrary<string | undefined>> = {
    'none': fc.constant(undefined),
    'garbage': fc.string({ maxLength: 60 }),
    'other scheme': fc.tuple(fc.constantFrom('Basic', 'Digest', 'DPoP', 'Bearer:', 'Bearerx'), fc.string({ maxLength: 30 })).map(([s, t]) => `${s} ${t}`),
    'Bearer, malformed': fc.constantFrom('Bearer', 'Bearer ', 'Bearer a b', 'Bearer a,b', 'Bearer ====', 'Bearer  a', '  bearer   a  ', 'Bearer a=b', 'Bearer .', 'Bearer ..', 'Bearer ...'),
    'Bearer random bytes': bearer(fc.oneof(bytes(200), fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b).toString('base64')))),
    'malformed JWT': bearer(fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('.')),
      fc.tuple(fc.oneof(header, fc.jsonValue({ maxDepth: 2 })), fc.oneof(claims, fc.jsonValue({ maxDepth: 2 })), bytes(300)).map(([h, c, s]) => `${b64url(h)}.${b64url(c)}.${s}`),
    )),
    'bad signature': bearer(fc.tuple(fc.constantFrom(...valid), fc.oneof(
      bytes(400).map((s) => (t: string) => `${parts(t)[0]}.${parts(t)[1]}.${s}`),
      // Not the last character: its low bits are padding, and a change there may decode to the same signature.
      fc.nat().map((n) => (t: string) => { const [h, p, s] = parts(t); const i = n % (s.length - 1); return `${h}.${p}.${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}` }),
      claims.map((c) => (t: string) => `${parts(t)[0]}.${b64url(c)}.${parts(t)[2]}`),
      fc.nat().map((n) => (t: string) => { const others = valid.filter((v) => v !== t); return `${parts(t)[0]}.${parts(others[n % others.length]!)[1]}.${parts(t)[2]}` }),
    )).map(([token, forge]) => forge(token))),
    'wrong alg': bearer(fc.tuple(fc.constantFrom(...valid), fc.constantFrom('HS256', 'HS512', 'none', 'ES256', 'PS256', 'RS512', 'EdDSA')).map(([t, alg]) => {
      const [h, p, s] = parts(t)
      return `${b64url({ ...JSON.parse(Buffer.from(h, 'base64url').toString()), alg })}.${p}.${alg === 'none' ? '' : s}`
    })),
    'refused token': bearer(fc.constantFrom(...refused)),
    'huge': fc.constantFrom(
      `Bearer ${'A'.repeat(16_385)}`, `Bearer ${valid[0]}${'A'.repeat(20_000)}`, `Bearer ${'a.'.repeat(40_000)}a`,
      `Basic ${'x'.repeat(100_000)}`, `Bearer ${b64url({ alg: 'RS256', kid: KID })}.${b64url({ iss: as.issuer, pad: 'x'.repeat(60_000) })}.sig`,
    ),
    'valid token': bearer(fc.constantFrom(...valid)),
  }
  const weights: Record<string, number> = { 'valid token': 12 }
  const headers = fc.oneof(...Object.entries(kinds).map(([kind, value]) => ({
    weight: weights[kind] ?? 1,
    arbitrary: value.map((v): AuthHeader => ({ kind, value: v })),
  })))
  return {
    auth: bearerAuth({ resource: RESOURCE, verify: jwtVerifier({ issuer: as.issuer, jwksUri: as.jwksUri }), scopeImplies: { 'mcp:admin': ['mcp:read'] } }),
    headers,
    valid: `Bearer ${valid[0]}`,
    jwksFetches: () => as.jwksFetches,
    close: () => as.close(),
  }
}
