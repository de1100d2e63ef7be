/**
 * jwtVerifier called directly, against local authorization servers on loopback (test/helpers/auth-server.ts):
 * what a valid token resolves to, audience (aud alone) and issuer checks, who the token names, exp/nbf and
 * clock tolerance, the typ header, key discovery (RFC 8414) and the module-level key-set cache across
 * verifiers, rotations (new kid or same) and outages (back-off), option checks, and, through the fetch
 * handler, that unreachable keys are answered 503, not blamed on the token, and bad tokens 401, never 5xx.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createEverythingServer } from '../../examples/everything/server.js'
import { bearerAuth, createFetchHandler, type ErrorContext, InvalidToken, jwtVerifier, tasks, type TokenVerifier } from '../../src/index.js'
import { KID, startAuthServer, type AuthServer } from '../helpers/auth-server.js'
import { META_2026, modernHeaders } from '../helpers/server.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const AUDIENCE = 'The token was not issued for this server (audience)'
const UNTRUSTED_ISSUER = 'The token is from an issuer this server does not trust'
const SIGNATURE = 'The token signature is not valid'
const NOBODY = 'The token names neither a subject (sub) nor a client (client_id or azp)'

const check = (verify: TokenVerifier, token: string, resource = RESOURCE) =>
  verify(token, { resource, request: new Request('http://x/mcp'), env: undefined })

/** What a verification was rejected with (undefined when it resolved). */
const rejection = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)

/** The message of the InvalidToken a verification is refused with; fails when it is not one. */
async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await rejection(p)
  expect(e).toBeInstanceOf(InvalidToken)
  return (e as InvalidToken).message
}

/** A fetch for jwtVerifier's `fetch` option that notes each URL it is asked for, and the Accept header sent. */
function recordingFetch() {
  const asked: string[] = []
  const accepts: (string | null)[] = []
  const recording: typeof fetch = (input, init) => (asked.push(String(input)), accepts.push(new Headers(init?.headers).get('accept')), fetch(input, init))
  return { asked, accepts, fetch: recording }
}

// as: most tests; other: a second issuer; the rest each serve one test, so that their counts and caches start empty.
let as: AuthServer, other: AuthServer, untouched: AuthServer, discovered: AuthServer, cold: AuthServer, rotating: AuthServer, flight: AuthServer
beforeAll(async () => {
  [as, other, untouched, discovered, cold, rotating, flight] = await Promise.all([
    startAuthServer(), startAuthServer(), startAuthServer(), startAuthServer(), startAuthServer(), startAuthServer(), startAuthServer(),
  ])
})
afterAll(() => Promise.all([as, other, untouched, discovered, cold, rotating, flight].map((s) => s.close())))

describe('a valid token', () => {
  it('resolves to its subject, issuer, client, space-separated scopes, expiry and claims', async () => {
    const token = await as.token(RESOURCE, { scope: 'mcp:read  mcp:write' })
    expect(await check(jwtVerifier({ issuer: as.issuer }), token)).toEqual({
      subject: 'user-1', issuer: as.issuer, clientId: 'test-client', scopes: ['mcp:read', 'mcp:write'], expiresAt: decodeJwt(token).exp, claims: decodeJwt(token),
    })
  })

  it('takes scopes from an scp array, and the client from azp when there is no client_id', async () => {
    const found = await check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, { scp: ['a', 7, 'b', null], client_id: undefined, azp: 'azp-client' }))
    expect([found?.scopes, found?.clientId]).toEqual([['a', 'b'], 'azp-client'])
    const both = await check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, { azp: 'azp-client' }))
    expect([both?.scopes, both?.clientId]).toEqual([[], 'test-client'])
  })
})

describe('audience', () => {
  const verify = () => jwtVerifier({ issuer: as.issuer })
  it('accepts an aud string or array naming the resource', async () => {
    expect(await check(verify(), await as.token(RESOURCE))).toBeDefined()
    expect(await check(verify(), await as.token('', { aud: ['https://other.example', RESOURCE] }))).toBeDefined()
  })

  it('is decided by aud alone, which is required: an RFC 8707 resource claim naming this server does not make up for it', async () => {
    expect(await refusal(check(verify(), await as.token('https://other.example', { resource: RESOURCE })))).toBe(AUDIENCE)
    expect(await refusal(check(verify(), await as.token('https://other.example', { resource: ['https://x.example', RESOURCE] })))).toBe(AUDIENCE)
    expect(await refusal(check(verify(), await as.token('', { aud: undefined, resource: RESOURCE })))).toBe(AUDIENCE)
  })

  it.each([['with a trailing slash', `${RESOURCE}/`], ['in another case', 'https://MCP.example.com/mcp'], ['as a prefix', 'https://mcp.example.com']])(
    'refuses a resource that differs only %s (exact match), as aud and in an aud array', async (_what, near) => {
      expect(await refusal(check(verify(), await as.token(near)))).toBe(AUDIENCE)
      expect(await refusal(check(verify(), await as.token('', { aud: ['https://other.example', near] })))).toBe(AUDIENCE)
    })
})

describe('who the token is for', () => {
  it.each([
    ['neither sub nor client_id nor azp', { sub: undefined, client_id: undefined }, NOBODY],
    ['only empty ones', { sub: undefined, client_id: '', azp: '' }, NOBODY],
    ['an empty sub', { sub: '' }, "The token's sub claim is not acceptable"],
    ['a sub that is not a string', { sub: 42 }, "The token's sub claim is not acceptable"],
  ])('refuses a token with %s: there is no one to bind state to', async (_what, claims, message) => {
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, claims)))).toBe(message)
  })

  it('binds a token without sub to its client', async () => {
    expect(await check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, { sub: undefined }))).toMatchObject({ subject: undefined, clientId: 'test-client' })
  })
})

describe('expiry and not-before', () => {
  it('refuses a token without exp, and one whose nbf is in the future', async () => {
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, { exp: undefined })))).toBe("The token's exp claim is not acceptable")
    const nbf = Math.floor(Date.now() / 1000) + 300
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer }), await as.token(RESOURCE, { nbf })))).toBe("The token's nbf claim is not acceptable")
  })

  it('accepts a token expired 10 s ago with the default 30 s tolerance, and refuses it with clockToleranceSec 0', async () => {
    const token = await as.token(RESOURCE, {}, { expiresInSec: -10 })
    expect((await check(jwtVerifier({ issuer: as.issuer }), token))?.subject).toBe('user-1')
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer, clockToleranceSec: 0 }), token))).toBe('The token has expired')
  })
})

describe('issuer', () => {
  it('refuses a token of an issuer not configured, without fetching any keys', async () => {
    const before = other.jwksFetches
    expect(await refusal(check(jwtVerifier({ issuer: untouched.issuer }), await other.token(RESOURCE)))).toBe(UNTRUSTED_ISSUER)
    expect([untouched.jwksFetches, other.jwksFetches]).toEqual([0, before])
  })

  it('verifies each of two issuers with its own keys, discovered per issuer', async () => {
    const verify = jwtVerifier({ issuer: [as.issuer, other.issuer] })
    expect((await check(verify, await as.token(RESOURCE)))?.issuer).toBe(as.issuer)
    expect((await check(verify, await other.token(RESOURCE)))?.issuer).toBe(other.issuer)
    // Signed by the second issuer's key (under the same kid) but naming the first: checked with the first's keys.
    expect(await refusal(check(verify, await other.token(RESOURCE, { iss: as.issuer })))).toBe(SIGNATURE)
  })
})

describe('typ header', () => {
  it("with typ 'at+jwt', refuses a token typed JWT and accepts one typed at+jwt (fixed keys, no fetch)", async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256')
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'local', alg: 'ES256' }] }
    const issuer = 'https://issuer.invalid'
    const sign = (typ: string) => new SignJWT({ sub: 'u', aud: RESOURCE }).setProtectedHeader({ alg: 'ES256', typ, kid: 'local' })
      .setIssuer(issuer).setExpirationTime('5m').sign(privateKey)
    const strict = jwtVerifier({ issuer, jwks, typ: 'at+jwt' })
    expect(await refusal(check(strict, await sign('JWT')))).toBe("The token's typ claim is not acceptable")
    expect((await check(strict, await sign('at+jwt')))?.subject).toBe('u')
    expect((await check(jwtVerifier({ issuer, jwks }), await sign('JWT')))?.subject).toBe('u')
  })
})

describe('key set cache and rotation', () => {
  afterEach(() => vi.useRealTimers())
  /** Moves the clock (Date only) past jose's 30 s cooldown between refetches for an unknown kid. */
  const pastCooldown = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 })

  it('fetches the key set once for many verifications, by one verifier or several made apart', async () => {
    const first = jwtVerifier({ issuer: cold.issuer, jwksUri: cold.jwksUri })
    for (let i = 0; i < 5; i++) await check(first, await cold.token(RESOURCE))
    expect(cold.jwksFetches).toBe(1)
    await check(jwtVerifier({ issuer: cold.issuer, jwksUri: cold.jwksUri }), await cold.token(RESOURCE))
    await check(jwtVerifier({ issuer: cold.issuer }), await cold.token(RESOURCE))
    expect(cold.jwksFetches).toBe(1)
  })

  it('after a rotation accepts a token of the new kid after exactly one more fetch (not within 30 s of the last one)', async () => {
    const verify = jwtVerifier({ issuer: rotating.issuer })
    await check(verify, await rotating.token(RESOURCE))
    await rotating.rotate('k2')
    const k2 = await rotating.token(RESOURCE, {}, { kid: 'k2' })
    expect(await refusal(check(verify, k2))).toBe(SIGNATURE)
    expect(rotating.jwksFetches).toBe(1)
    pastCooldown()
    expect((await check(verify, k2))?.subject).toBe('user-1')
    expect((await check(verify, await rotating.token(RESOURCE)))?.subject).toBe('user-1')
    expect(rotating.jwksFetches).toBe(2)
  })

  it('fetches once for ten concurrent verifications of a token of a new kid (single flight)', async () => {
    const verify = jwtVerifier({ issuer: flight.issuer })
    await check(verify, await flight.token(RESOURCE))
    await flight.rotate('k2')
    pastCooldown()
    const k2 = await flight.token(RESOURCE, {}, { kid: 'k2' })
    const found = await Promise.all(Array.from({ length: 10 }, () => check(verify, k2)))
    expect(found.map((f) => f?.subject)).toEqual(Array(10).fill('user-1'))
    expect(flight.jwksFetches).toBe(2)
  })

  /** Runs the clock (Date only) from now on, moved by hand with later(). */
  const clock = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms)

  it('accepts a token of a key replaced under the same kid after one more fetch (not within 30 s of the last), and forgeries under it fetch no more', async () => {
    const reused = await startAuthServer()
    try {
      clock()
      const verify = jwtVerifier({ issuer: reused.issuer, jwksUri: reused.jwksUri })
      await check(verify, await reused.token(RESOURCE))
      await reused.rotate(KID)
      const renewed = await reused.token(RESOURCE)
      expect(await refusal(check(verify, renewed))).toBe(SIGNATURE)
      expect(reused.jwksFetches).toBe(1)
      later(31_000)
      expect((await check(verify, renewed))?.subject).toBe('user-1')
      expect(reused.jwksFetches).toBe(2)
      for (let i = 0; i < 10; i++) expect(await refusal(check(verify, await reused.untrusted(RESOURCE)))).toBe(SIGNATURE)
      expect(reused.jwksFetches).toBe(2)
      later(31_000)
      for (let i = 0; i < 10; i++) expect(await refusal(check(verify, await reused.untrusted(RESOURCE)))).toBe(SIGNATURE)
      expect(reused.jwksFetches).toBe(3)
    } finally {
      await reused.close()
    }
  })

  it('while the key set endpoint fails, fetches it again only after a back-off growing from 1 s to at most 30 s, not once per request', async () => {
    const failing = await startAuthServer()
    failing.down = true
    try {
      clock()
      const verify = jwtVerifier({ issuer: failing.issuer, jwksUri: failing.jwksUri })
      const token = await failing.token(RESOURCE)
      /** Verifies `token` n times: each is refused with the server's failure (503), never blamed on the token. */
      const attempts = async (n: number) => {
        for (let i = 0; i < n; i++) expect(await rejection(check(verify, token))).toEqual(expect.objectContaining({ message: expect.stringContaining('HTTP 503') }))
        return failing.jwksFetches
      }
      expect(await attempts(20)).toBe(1)
      later(1_000)
      expect(await attempts(20)).toBe(2)
      later(1_000)
      expect(await attempts(5)).toBe(2)
      later(1_000)
      expect(await attempts(5)).toBe(3)
      for (let i = 0; i < 8; i++) {
        later(30_000)
        expect(await attempts(5)).toBe(4 + i)
      }
      later(29_000)
      expect(await attempts(5)).toBe(11)
      failing.down = false
      later(1_000)
      expect((await check(verify, token))?.subject).toBe('user-1')
      expect(failing.jwksFetches).toBe(12)
    } finally {
      await failing.close()
    }
  })

  it('while the key set endpoint fails, tokens of unknown kids cost one fetch per 30 s, the rest refused from the cache; known keys still verify', async () => {
    const failing = await startAuthServer()
    try {
      clock()
      const verify = jwtVerifier({ issuer: failing.issuer, jwksUri: failing.jwksUri })
      await check(verify, await failing.token(RESOURCE))
      failing.down = true
      later(31_000)
      expect(await rejection(check(verify, await failing.untrusted(RESOURCE, 'new-0')))).not.toBeInstanceOf(InvalidToken)
      for (let i = 1; i <= 20; i++) expect(await refusal(check(verify, await failing.untrusted(RESOURCE, `new-${i}`)))).toBe(SIGNATURE)
      expect(failing.jwksFetches).toBe(2)
      expect((await check(verify, await failing.token(RESOURCE)))?.subject).toBe('user-1')
      later(31_000)
      for (let i = 21; i <= 40; i++) await rejection(check(verify, await failing.untrusted(RESOURCE, `new-${i}`)))
      expect(failing.jwksFetches).toBe(3)
    } finally {
      await failing.close()
    }
  })
})

describe('verified tokens remembered', () => {
  afterEach(() => vi.restoreAllMocks())
  afterEach(() => vi.useRealTimers())
  /** Signature checks made through Web Crypto while `run` runs: what remembering a token saves. */
  const signatureChecks = async (run: () => Promise<unknown>) => {
    const spy = vi.spyOn(crypto.subtle, 'verify')
    await run()
    const n = spy.mock.calls.length
    spy.mockRestore()
    return n
  }

  it('checks a token once, then answers it from memory; with cachedTokens 0, every time', async () => {
    const token = await as.token(RESOURCE)
    const remembering = jwtVerifier({ issuer: as.issuer })
    expect(await signatureChecks(() => check(remembering, token))).toBe(1)
    expect(await signatureChecks(() => check(remembering, token))).toBe(0)
    const forgetting = jwtVerifier({ issuer: as.issuer, cachedTokens: 0 })
    expect(await signatureChecks(async () => { await check(forgetting, token); await check(forgetting, token) })).toBe(2)
  })

  it('fetches the key set again once it is older than cacheMaxAgeMs', async () => {
    const aged = await startAuthServer()
    try {
      vi.useFakeTimers({ toFake: ['Date'] })
      const verify = jwtVerifier({ issuer: aged.issuer, cacheMaxAgeMs: 1000 })
      await check(verify, await aged.token(RESOURCE))
      vi.setSystemTime(Date.now() + 999)
      await check(verify, await aged.token(RESOURCE, { sub: 'user-2' }))
      expect(aged.jwksFetches).toBe(1)
      vi.setSystemTime(Date.now() + 1)
      await check(verify, await aged.token(RESOURCE, { sub: 'user-3' }))
      expect(aged.jwksFetches).toBe(2)
    } finally {
      await aged.close()
    }
  })

  it('keeps every token while there is room: the first of two is still answered from memory', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const [one, two] = [await as.token(RESOURCE), await as.token(RESOURCE)]
    expect(await signatureChecks(async () => { await check(verify, one); await check(verify, two); await check(verify, one) })).toBe(2)
  })

  it('refuses what is not a JWT, saying so', async () => {
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer }), 'not.a-jwt'))).toBe('The token is not a JWT')
  })

  it('forgets the oldest token when full', async () => {
    const verify = jwtVerifier({ issuer: as.issuer, cachedTokens: 1 })
    const [one, two] = [await as.token(RESOURCE), await as.token(RESOURCE)]
    expect(await signatureChecks(async () => { await check(verify, one); await check(verify, two); await check(verify, two); await check(verify, one) })).toBe(3)
  })

  it('refuses an HMAC-signed token for its algorithm before any key is tried', async () => {
    expect(await refusal(check(jwtVerifier({ issuer: as.issuer }), await as.hmacWithPublicKey(RESOURCE)))).toBe('The token is signed with an algorithm this server does not accept')
  })

  it('never past the expiry (with its tolerance), and never for another resource', async () => {
    const verify = jwtVerifier({ issuer: as.issuer })
    const token = await as.token(RESOURCE, {}, { expiresInSec: 40 })
    await check(verify, token)
    expect(await refusal(check(verify, token, 'https://other.example/mcp'))).toBe(AUDIENCE)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 75_000 })
    expect(await refusal(check(verify, token))).toBe('The token has expired')
  })
})

describe('key discovery', () => {
  const elsewhere = () => `${as.issuer}/nothing`
  it('finds the keys through RFC 8414 metadata without jwksUri', async () => {
    expect((await check(jwtVerifier({ issuer: discovered.issuer }), await discovered.token(RESOURCE)))?.issuer).toBe(discovered.issuer)
    expect(discovered.jwksFetches).toBe(1)
  })

  it('needs no metadata when jwksUri is given', async () => {
    const verify = jwtVerifier({ issuer: elsewhere(), jwksUri: as.jwksUri })
    expect((await check(verify, await as.token(RESOURCE, { iss: elsewhere() })))?.issuer).toBe(elsewhere())
  })

  it('rejects with an error that is not InvalidToken (answered 503), naming the issuer, when discovery fails', async () => {
    const e = await rejection(check(jwtVerifier({ issuer: elsewhere() }), await as.token(RESOURCE, { iss: elsewhere() })))
    expect(e).toBeInstanceOf(Error)
    expect(e).not.toBeInstanceOf(InvalidToken)
    expect((e as Error).message).toContain(elsewhere())
  })

  it('refuses metadata that names another issuer (RFC 8414 §3.3): its keys are never fetched, the token never accepted', async () => {
    // The metadata of the configured issuer, pointing at that issuer's own keys, but claiming to be another's:
    // a mix-up (or a proxy in between) that must not lend the other issuer's say to these keys.
    const mixedUp = await startAuthServer({ metadataIssuer: 'https://other-issuer.example' })
    try {
      const e = await rejection(check(jwtVerifier({ issuer: mixedUp.issuer }), await mixedUp.token(RESOURCE)))
      expect(e).toBeInstanceOf(Error)
      expect(e).not.toBeInstanceOf(InvalidToken)
      expect((e as Error).message).toContain('oauth-authorization-server: it names issuer https://other-issuer.example')
      expect(mixedUp.jwksFetches).toBe(0)
    } finally {
      await mixedUp.close()
    }
  })

  it('falls back to the OpenID configuration, and says what each place answered when neither has the keys', async () => {
    const oidc = createServer((req, res) => {
      const base = `http://127.0.0.1:${(oidc.address() as AddressInfo).port}/tenant`
      if (req.url === '/tenant/.well-known/openid-configuration') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: base, jwks_uri: as.jwksUri }))
      else res.writeHead(404).end()
    })
    await new Promise<void>((r) => oidc.listen(0, '127.0.0.1', r))
    const issuer = `http://127.0.0.1:${(oidc.address() as AddressInfo).port}/tenant`
    try {
      expect((await check(jwtVerifier({ issuer }), await as.token(RESOURCE, { iss: issuer })))?.issuer).toBe(issuer)
      const missing = `${issuer}-other`
      const e = await rejection(check(jwtVerifier({ issuer: missing }), await as.token(RESOURCE, { iss: missing })))
      expect((e as Error).message).toMatch(/oauth-authorization-server\/tenant-other: HTTP 404; .*tenant-other\/\.well-known\/openid-configuration: HTTP 404\)$/)
    } finally {
      await new Promise((r) => oidc.close(r))
    }
  })

  it('looks an issuer\'s metadata up once, for every verifier of that issuer', async () => {
    const { asked, fetch: spy } = recordingFetch()
    const fresh = await startAuthServer()
    try {
      await check(jwtVerifier({ issuer: fresh.issuer, fetch: spy }), await fresh.token(RESOURCE))
      await check(jwtVerifier({ issuer: fresh.issuer, fetch: spy }), await fresh.token(RESOURCE, { sub: 'user-2' }))
      expect(asked.filter((u) => u.includes('/.well-known/'))).toEqual([`${fresh.issuer}/.well-known/oauth-authorization-server`])
    } finally {
      await fresh.close()
    }
  })

  it('remembers a failed lookup for 30 s, then asks again', async () => {
    const { asked, fetch: spy } = recordingFetch()
    // Both metadata places answer 404 there: the lookup fails.
    const issuer = `${as.issuer}/gone-${Math.random().toString(36).slice(2)}`
    const verify = jwtVerifier({ issuer, fetch: spy })
    const token = await as.token(RESOURCE, { iss: issuer })
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    try {
      expect(await rejection(check(verify, token))).toBeInstanceOf(Error)
      expect(asked).toHaveLength(2)
      expect(await rejection(check(verify, token))).toBeInstanceOf(Error)
      expect(asked).toHaveLength(2)
      vi.advanceTimersByTime(29_000)
      expect(await rejection(check(verify, token))).toBeInstanceOf(Error)
      expect(asked).toHaveLength(2)
      vi.advanceTimersByTime(1_000)
      expect(await rejection(check(verify, token))).toBeInstanceOf(Error)
      expect(asked).toHaveLength(4)
    } finally {
      vi.useRealTimers()
    }
  })

  it('fetches metadata and keys with the fetch it is given, asking for JSON', async () => {
    const { asked, accepts, fetch: spy } = recordingFetch()
    const fresh = await startAuthServer()
    try {
      await check(jwtVerifier({ issuer: fresh.issuer, fetch: spy }), await fresh.token(RESOURCE))
      expect(asked).toEqual([`${fresh.issuer}/.well-known/oauth-authorization-server`, fresh.jwksUri])
      expect(accepts).toEqual(['application/json', 'application/json, application/jwk-set+json'])
    } finally {
      await fresh.close()
    }
  })

  it('rejects with an error that is not InvalidToken when the key set endpoint answers 404', async () => {
    const verify = jwtVerifier({ issuer: as.issuer, jwksUri: `${as.issuer}/no-such-jwks.json` })
    expect(await rejection(check(verify, await as.token(RESOURCE)))).not.toBeInstanceOf(InvalidToken)
  })
})

describe('options', () => {
  it.each([
    ['HMAC algorithms', { algorithms: ['RS256', 'HS256'] }, /asymmetric/],
    ['alg none', { algorithms: ['none'] }, /asymmetric/],
    ['an empty issuer list', { issuer: [] }, /at least one issuer/],
    ['an empty issuer', { issuer: ['https://a', ''] }, /at least one issuer/],
    ['jwksUri with two issuers', { issuer: ['https://a.example', 'https://b.example'], jwksUri: 'https://a.example/jwks' }, /one issuer/],
  ])('refuses %s at construction', (_what, options, message) => {
    expect(() => jwtVerifier({ issuer: 'https://a.example', ...options })).toThrow(message)
  })
})

describe('through the fetch handler', () => {
  const resource = 'http://127.0.0.1/mcp'
  /** A POST of `method` with `token` to the everything server, authorized by `verify`. */
  const post = (verify: TokenVerifier, token: string, method = 'server/discover', params: Record<string, unknown> = {}, onError?: (e: unknown, c: ErrorContext) => void) => {
    const handler = createFetchHandler(createEverythingServer(), { extensions: [tasks()], auth: bearerAuth({ resource, verify }), ...(onError ? { onError } : {}) })
    const full = { ...params, _meta: META_2026() }
    return handler(new Request(resource, {
      method: 'POST',
      headers: { ...modernHeaders(method, full), authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: full }),
    }))
  }

  it('answers 503 temporarily_unavailable with retry-after when the keys are unreachable, reporting it during authorization', async () => {
    const reported: ErrorContext[] = []
    const verify = jwtVerifier({ issuer: as.issuer, jwksUri: 'http://127.0.0.1:1/unreachable' })
    const res = await post(verify, await as.token(resource), 'server/discover', {}, (_e, context) => reported.push(context))
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5'])
    const body = await res.json() as { error: string; error_description: string }
    expect(body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/error id/) })
    expect(reported).toEqual([expect.objectContaining({ during: 'authorization' })])
    expect(body.error_description).toContain(reported[0]!.errorId)
  })

  it('answers a valid token naming no subject nor client 401 invalid_token, saying so (the client\'s token, not the server, is at fault)', async () => {
    const res = await post(jwtVerifier({ issuer: as.issuer }), await as.token(resource, { sub: undefined, client_id: undefined }))
    expect([res.status, await res.json()]).toEqual([401, { error: 'invalid_token', error_description: NOBODY }])
  })

  it('answers a token granted scopes named after Object.prototype members like any other', async () => {
    const token = await as.token(resource, { scope: 'constructor __proto__ toString mcp:admin' })
    const res = await post(jwtVerifier({ issuer: as.issuer }), token, 'tools/call', { name: 'test_admin_action', arguments: {} })
    expect([res.status, (await res.json()).result?.content]).toEqual([200, [{ type: 'text', text: 'Admin action done for user-1' }]])
  })
})
