/**
 * The resource-server gate of the fetch handler, in this process: how the bearer token is read, what is
 * refused with which status and challenge, in which order with the other checks, the metadata document,
 * baseline scopes and their hierarchy, identity verified upstream, and verifiers of one's own.
 */
import { describe, expect, it } from 'vitest'
import { createEverythingServer } from '../../examples/everything/server.js'
import { type AuthInfo, bearerAuth, createFetchHandler, type ErrorContext, type HandlerOptions, InvalidToken, McpServer, tasks, type TokenVerifier } from '../../src/index.js'
import { as, namedUsers, rpcAs } from '../helpers/auth.js'
import { META_2026, modernHeaders, tasksFor } from '../helpers/server.js'

const RESOURCE = 'http://localhost/mcp'
const METADATA = 'http://localhost/.well-known/oauth-protected-resource/mcp'
const handlerWith = (auth: Partial<HandlerOptions['auth']> = {}, options: HandlerOptions = {}, server: McpServer = createEverythingServer()) =>
  createFetchHandler(server, { extensions: tasksFor(server), ...options, auth: bearerAuth(namedUsers(auth)) })

/** A POST of server/discover with these headers (and this body), as raw as a client can send it. */
function post(handler: (r: Request) => Promise<Response>, headers: Record<string, string>, body?: string) {
  const params = { _meta: META_2026() }
  return handler(new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { ...modernHeaders('server/discover', params), ...headers },
    body: body ?? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params }),
  }))
}

describe('reading the token', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
  ])('%s: 401 with only where to get a token (no error code), never cached', async (_what, headers) => {
    const res = await post(handlerWith(), headers)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'This server needs an access token, sent as Authorization: Bearer <token>' })
  })

  it('takes spaces between scheme and token as one', async () => {
    expect((await post(handlerWith(), { authorization: 'Bearer   alice' })).status).toBe(200)
  })

  it('keeps a challenge well-formed whatever the verifier says: quotes and backslashes in a reason become spaces', async () => {
    const verify: TokenVerifier = async () => {
      throw new InvalidToken('bad "token" \\ here')
    }
    const res = await post(handlerWith({ verify }), as('t'))
    expect(res.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="bad  token    here", resource_metadata="${METADATA}"`)
    expect((await res.json()).error_description).toBe('bad "token" \\ here')
  })

  it.each([['Bearer'], ['Bearer two tokens'], ['Bearer not,b64token']])('a malformed header (%s): 400 invalid_request', async (authorization) => {
    const res = await post(handlerWith(), { authorization })
    expect(res.status).toBe(400)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request", error_description="The Authorization header is malformed/)
  })

  it('takes the scheme in any case, and the token only from the header, never the query string', async () => {
    expect((await post(handlerWith(), { authorization: 'bEaReR alice' })).status).toBe(200)
    const handler = handlerWith()
    const params = { _meta: META_2026() }
    const res = await handler(new Request('http://localhost/mcp?access_token=alice', {
      method: 'POST', headers: modernHeaders('server/discover', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params }),
    }))
    expect(res.status).toBe(401)
  })

  it('refuses a token longer than 16 KiB unread: the verifier never sees it', async () => {
    let seen = 0
    const verify: TokenVerifier = async (token) => (seen++, { subject: token, claims: {} })
    const res = await post(handlerWith({ verify }), as('a'.repeat(16_385)))
    expect([res.status, seen]).toEqual([401, 0])
    expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'The token is not acceptable' })
    expect((await post(handlerWith({ verify }), as('a'.repeat(16_384)))).status).toBe(200)
  })
})

describe('order with the other checks', () => {
  it('checks Host and Origin first: a rebound Host gets 403 whether or not there is a token', async () => {
    const res = await handlerWith()(new Request('http://evil.example/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
    expect(res.status).toBe(403)
    expect(res.headers.has('www-authenticate')).toBe(false)
  })

  it('challenges before reading the body, and before any SSE byte of a stream', async () => {
    expect((await post(handlerWith(), {}, 'not json')).status).toBe(401)
    const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
    const res = await handlerWith()(new Request('http://localhost/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params }),
    }))
    expect([res.status, res.headers.get('content-type')]).toEqual([401, 'application/json'])
  })

  it('lets a browser client read the challenge (WWW-Authenticate exposed through CORS), and answers preflights without a token', async () => {
    const handler = handlerWith({}, { allowedOrigins: ['https://app.example'] })
    const res = await post(handler, { origin: 'https://app.example' })
    expect([res.status, res.headers.get('access-control-allow-origin'), res.headers.get('access-control-expose-headers')]).toEqual([401, 'https://app.example', 'www-authenticate, mcp-session-id'])
    const preflight = await handler(new Request('http://localhost/mcp', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } }))
    expect(preflight.status).toBe(204)
  })
})

describe('the protected-resource metadata', () => {
  const get = (handler: (r: Request) => Promise<Response>, path: string, init: RequestInit = {}) => handler(new Request(`http://localhost${path}`, init))

  it('is a fixed document: baseline scopes, name and documentation as configured, HEAD without a body, other methods 405', async () => {
    const handler = handlerWith({ scopes: ['mcp:read'], resourceName: 'Demo', resourceDocumentation: 'https://docs.example/mcp' })
    const res = await get(handler, '/.well-known/oauth-protected-resource/mcp')
    expect([res.status, res.headers.get('content-type'), res.headers.get('access-control-allow-origin'), res.headers.get('cache-control')])
      .toEqual([200, 'application/json', '*', 'public, max-age=3600'])
    expect(await res.json()).toEqual({
      resource: RESOURCE, authorization_servers: ['https://as.example'], scopes_supported: ['mcp:read'], bearer_methods_supported: ['header'],
      resource_name: 'Demo', resource_documentation: 'https://docs.example/mcp',
    })
    const head = await get(handler, '/.well-known/oauth-protected-resource', { method: 'HEAD' })
    expect([head.status, await head.text()]).toEqual([200, ''])
    const posted = await get(handler, '/.well-known/oauth-protected-resource', { method: 'POST' })
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS'])
    const preflight = await get(handler, '/.well-known/oauth-protected-resource', { method: 'OPTIONS', headers: { origin: 'https://app.example' } })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-methods')]).toEqual([204, '*', 'GET, HEAD, OPTIONS'])
    expect([preflight.headers.get('access-control-allow-headers'), preflight.headers.get('access-control-max-age')]).toEqual(['mcp-protocol-version', '86400'])
    expect(createFetchHandler(createEverythingServer(), { extensions: [tasks()] }).metadataPaths).toEqual([])
  })

  it('inserts the whole resource path, or has only the root URL for a resource at the root', () => {
    expect(handlerWith({ resource: 'https://h.example/tenant/mcp' }).metadataPaths).toEqual(['/.well-known/oauth-protected-resource/tenant/mcp', '/.well-known/oauth-protected-resource'])
    expect(handlerWith({ resource: 'https://h.example' }).metadataPaths).toEqual(['/.well-known/oauth-protected-resource'])
  })

  it('checks the Host but not the Origin: any site may read it, no rebound name may', async () => {
    const handler = handlerWith()
    expect((await get(handler, '/.well-known/oauth-protected-resource/mcp', { headers: { origin: 'https://elsewhere.example' } })).status).toBe(200)
    expect((await handler(new Request('http://evil.example/.well-known/oauth-protected-resource/mcp'))).status).toBe(403)
  })

  it.each([
    ['HTTPS://h.example/mcp', /canonical form: https:\/\/h.example\/mcp/],
    ['https://h.example/', /canonical form: https:\/\/h.example rather/],
    ['https://h.example/mcp#x', /no fragment/],
    ['https://h.example/mcp#', /no fragment/],
    ['ftp://h.example/mcp', /http\(s\) URL/],
    ['/mcp', /absolute URL/],
  ])('refuses a resource URL that is not canonical (%s) at start-up', (resource, message) => {
    expect(() => handlerWith({ resource })).toThrow(message)
  })

  it('needs an authorization server to name', () => {
    expect(() => handlerWith({ authorizationServers: [] })).toThrow(/at least one authorization server/)
  })
})

describe('scopes every request needs', () => {
  const verify: TokenVerifier = async (token) => ({ subject: 'u', scopes: token === 'none' ? [] : token.split('~'), claims: {} })

  it('403 insufficient_scope naming the baseline for a token without it; the 401 challenge names it too', async () => {
    const handler = handlerWith({ scopes: ['read'], verify })
    const refused = await post(handler, as('none'))
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([403,
      `Bearer error="insufficient_scope", error_description="This server needs more scopes than the token has", scope="read", resource_metadata="${METADATA}"`])
    expect((await post(handler, as('read'))).status).toBe(200)
    expect((await post(handler, {})).headers.get('www-authenticate')).toBe(`Bearer scope="read", resource_metadata="${METADATA}"`)
  })

  it('counts a scope implied by a granted one, transitively', async () => {
    const handler = handlerWith({ scopes: ['read'], verify, scopeImplies: { 'admin': ['write'], 'write': ['read'] } })
    expect((await post(handler, as('admin'))).status).toBe(200)
    expect((await post(handler, as('other'))).status).toBe(403)
  })

  it('takes scopes named after Object.prototype members (constructor, __proto__, toString) as names like any other', async () => {
    const server = new McpServer({ name: 'w', version: '1' }).tool('scopes', {}, (_a, ctx) => ctx.auth!.scopes.join(' '))
    const granted = (handler: (r: Request) => Promise<Response>, token: string) => rpcAs(handler, token, 'tools/call', { name: 'scopes', arguments: {} })
    const plain = handlerWith({ verify }, {}, server)
    const implying = handlerWith({ verify, scopes: ['read'], scopeImplies: { admin: ['read'] } }, {}, server)
    for (const scope of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect((await granted(plain, `${scope}~x`)).body.result.content[0].text).toBe(`${scope} x`)
      expect((await post(implying, as(scope))).status).toBe(403)
      expect((await granted(implying, `${scope}~admin`)).body.result.content[0].text).toBe(`${scope} admin read`)
    }
  })
})

describe('verifiers', () => {
  const seen = (handler: (r: Request) => Promise<Response>, user?: string) => rpcAs(handler, user, 'tools/call', { name: 'whoami', arguments: {} })
  const whoami = () => new McpServer({ name: 'w', version: '1' })
    .tool('whoami', {}, (_a, ctx) => JSON.stringify({ principal: ctx.principal, auth: ctx.auth }))
    .tool('token', {}, (_a, ctx) => `${ctx.request?.url} ${ctx.request?.headers.get('mcp-method')} ${ctx.request?.headers.get('authorization')}`)

  it('binds to issuer|subject, or client:<id> for a token without a subject; the handler sees the identity, never the token', async () => {
    const verify: TokenVerifier = async (token) => (token === 'machine' ? { clientId: 'svc', scopes: ['x'], claims: {} } : { subject: token, issuer: 'https://as.example', claims: { sub: token } })
    const handler = createFetchHandler(whoami(), { auth: bearerAuth(namedUsers({ verify })) })
    const alice = JSON.parse((await seen(handler, 'alice')).body.result.content[0].text)
    expect(alice).toEqual({ principal: 'https://as.example|alice', auth: { subject: 'alice', issuer: 'https://as.example', scopes: [], claims: { sub: 'alice' } } })
    expect(JSON.parse((await seen(handler, 'machine')).body.result.content[0].text).principal).toBe('client:svc')
    // ctx.request is the request without its Authorization header.
    expect((await rpcAs(handler, 'alice', 'tools/call', { name: 'token', arguments: {} })).body.result.content[0].text).toBe('http://127.0.0.1/mcp tools/call null')
  })

  it('a token the verifier refuses (undefined, or InvalidToken with a reason) is 401 invalid_token with that reason', async () => {
    const verify: TokenVerifier = async (token) => {
      if (token === 'revoked') throw new InvalidToken('The token was revoked')
      return undefined
    }
    const handler = handlerWith({ verify })
    expect((await post(handler, as('revoked'))).headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="The token was revoked"/)
    expect((await post(handler, as('other'))).headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="The token is not acceptable"/)
  })

  it('refuses an identity that expired more than 30 s ago', async () => {
    const at = (secondsAgo: number): TokenVerifier => async () => ({ subject: 'u', expiresAt: Math.floor(Date.now() / 1000) - secondsAgo, claims: {} })
    const expired = await post(handlerWith({ verify: at(60) }), as('t'))
    expect([expired.status, await expired.json()]).toEqual([401, { error: 'invalid_token', error_description: 'The token has expired' }])
    expect((await post(handlerWith({ verify: at(5) }), as('t'))).status).toBe(200)
  })

  it('an identity with neither subject nor client id is the verifier\'s fault: 503, reported, no anonymous request', async () => {
    const errors: ErrorContext[] = []
    const reported: unknown[] = []
    const handler = handlerWith({ verify: async () => ({ scopes: [], claims: {} }) }, { onError: (e, c) => void (errors.push(c), reported.push(e)) })
    const res = await post(handler, as('t'))
    expect(res.status).toBe(503)
    expect(errors.map((e) => e.during)).toEqual(['authorization'])
    expect((reported[0] as Error).message).toBe('the token verifier returned an identity with neither subject nor clientId: nothing to bind state to')
    expect(await res.json()).toEqual({ error: 'temporarily_unavailable', error_description: `Authorization failed on the server (error id ${errors[0]!.errorId})` })
  })

  it('takes identity verified upstream (RuntimeContext.auth) in place of a token, and still checks its scopes', async () => {
    const upstream: AuthInfo = { subject: 'provider-user', clientId: 'c', scopes: ['mcp:read'], claims: { plan: 'pro' } }
    const handler = createFetchHandler(whoami(), { auth: bearerAuth({ resource: RESOURCE, authorizationServers: ['https://as.example'] }) })
    const params = { name: 'whoami', arguments: {}, _meta: META_2026() }
    const request = () => new Request('http://localhost/mcp', { method: 'POST', headers: modernHeaders('tools/call', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) })
    const res = await handler(request(), { auth: upstream })
    expect(JSON.parse((await res.json()).result.content[0].text)).toEqual({ principal: 'provider-user', auth: upstream })
    // Without a verifier, nothing but upstream identity gets in.
    expect((await handler(request())).status).toBe(401)
    const scoped = createFetchHandler(whoami(), { auth: bearerAuth({ resource: RESOURCE, authorizationServers: ['https://as.example'], scopes: ['mcp:write'] }) })
    expect((await scoped(request(), { auth: upstream })).status).toBe(403)
  })
})
