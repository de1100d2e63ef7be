/**
 * What every runtime's resource server must do, against the local authorization server
 * (test/helpers/auth-server.ts): run by the Node, wrangler dev and function-URL tests on the everything
 * server started with MCP_AUTH_ISSUER. Plain fetch over the network, as a client sees it.
 */
import { expect, it } from 'vitest'
import type { AuthServer } from './auth-server.js'
import { META_2026, modernHeaders, rpc } from './server.js'

export interface AuthTarget {
  /** The endpoint, as reached (may differ from the resource only where a proxy is in between). */
  readonly url: string
  /** The canonical resource URL the server was configured with. */
  readonly resource: string
}

const metadataUrl = (resource: string) => {
  const url = new URL(resource)
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`
}

/** One request to `target`, with `token` as its bearer token when given; the answer is schema-checked. */
export function call(target: AuthTarget, method: string, params: Record<string, unknown>, token?: string) {
  const full = { ...params, _meta: META_2026() }
  const headers = { ...modernHeaders(method, full), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) }
  return rpc(fetch, method, full, { headers, url: target.url })
}

/** The `it`s of the resource-server contract, for a target and its authorization server made in beforeAll. */
export function resourceServerChecks(get: () => { target: AuthTarget; as: AuthServer }): void {
  it('refuses a request without a token: 401, a challenge naming the metadata and no error', async () => {
    const { target } = get()
    const { status, headers, body } = await call(target, 'server/discover', {})
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl(target.resource)}"`)
    expect(body.error).toBe('invalid_token')
  })

  it('answers a request with a valid token', async () => {
    const { target, as } = get()
    const token = await as.token(target.resource)
    expect((await call(target, 'server/discover', {}, token)).body.result.supportedVersions).toContain('2026-07-28')
    const added = await call(target, 'tools/call', { name: 'add', arguments: { a: 40, b: 2 } }, token)
    expect([added.status, added.body.result.structuredContent]).toEqual([200, { sum: 42 }])
  })

  const AUDIENCE = 'The token was not issued for this server (audience)'
  const ALGORITHM = 'The token is signed with an algorithm this server does not accept'
  it.each([
    ['for another audience', AUDIENCE, (as: AuthServer, resource: string) => as.token(`${resource}-other`)],
    ['without an audience', AUDIENCE, (as: AuthServer) => as.token('', { aud: undefined })],
    ['expired', 'The token has expired', (as: AuthServer, resource: string) => as.token(resource, {}, { expiresInSec: -120 })],
    ['signed by an untrusted key under a trusted kid', 'The token signature is not valid', (as: AuthServer, resource: string) => as.untrusted(resource)],
    ['with alg none', ALGORITHM, async (as: AuthServer, resource: string) => as.unsigned(resource)],
    ['signed HS256 with the public key as secret', ALGORITHM, (as: AuthServer, resource: string) => as.hmacWithPublicKey(resource)],
  ])('refuses a token %s: 401 invalid_token', async (_what, description, forge) => {
    const { target, as } = get()
    const { status, headers, body } = await call(target, 'server/discover', {}, await forge(as, target.resource))
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadataUrl(target.resource)}"`)
    expect(body).toEqual({ error: 'invalid_token', error_description: description })
  })

  it('answers 403 insufficient_scope to a valid token without mcp:admin calling test_admin_action, and runs it with the scope', async () => {
    const { target, as } = get()
    const params = { name: 'test_admin_action', arguments: {} }
    const refused = await call(target, 'tools/call', params, await as.token(target.resource, { scope: 'mcp:read' }))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="tools/call of test_admin_action needs scopes this request was not granted: mcp:admin", scope="mcp:admin", resource_metadata="${metadataUrl(target.resource)}"`)
    expect(refused.body).toMatchObject({ error: 'insufficient_scope' })
    const allowed = await call(target, 'tools/call', params, await as.token(target.resource, { scope: 'mcp:read mcp:admin' }))
    expect(allowed.body.result.content).toEqual([{ type: 'text', text: 'Admin action done for user-1' }])
  })

  it('serves its protected-resource metadata at the path-inserted and the root well-known URL, to any origin', async () => {
    const { target, as } = get()
    const reached = new URL(target.url)
    for (const path of [new URL(metadataUrl(target.resource)).pathname, '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${reached.origin}${path}`, { headers: { origin: 'https://app.example' } })
      expect([path, res.status, res.headers.get('access-control-allow-origin'), res.headers.get('content-type')]).toEqual([path, 200, '*', 'application/json'])
      // Byte-identical to the configured URL, never taken from the Host the request came by.
      expect(await res.json()).toEqual({
        resource: target.resource, authorization_servers: [as.issuer], bearer_methods_supported: ['header'], resource_name: 'mcp-edge everything server',
      })
    }
    const preflight = await fetch(metadataUrl(target.resource).replace(new URL(target.resource).origin, reached.origin), {
      method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*'])
  })
}
