/**
 * A Worker behind workers-oauth-provider, inside workerd, as the README sets it up: a client registers,
 * is authorized, exchanges its code for a token, and calls the MCP endpoint through the provider, which
 * hands what it verified to createWorker. Handlers see it as ctx.auth; scopes and principals apply.
 */
import { OAuthProvider, type OAuthHelpers } from '@cloudflare/workers-oauth-provider'
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker } from '../../adapters/cloudflare/index.js'
import { bearerAuth, McpServer } from '../../src/index.js'
import { mcpRequest } from './sse.js'

type ProviderEnv = Cloudflare.Env & { OAUTH_PROVIDER: OAuthHelpers }
const ORIGIN = 'https://notes.example.com'
const RESOURCE = `${ORIGIN}/mcp`
const REDIRECT = 'https://client.example/callback'

const server = new McpServer({ name: 'notes', version: '1.0.0' })
  .tool('whoami', {}, (_a, ctx) => JSON.stringify({ principal: ctx.principal, auth: ctx.auth }))
  .tool('purge', { scopes: ['notes:admin'] }, () => 'purged')

const provider = new OAuthProvider<ProviderEnv>({
  apiRoute: '/mcp',
  apiHandler: createWorker<ProviderEnv>(server, { auth: bearerAuth({ resource: RESOURCE, authorizationServers: [ORIGIN] }) }),
  resourceMetadata: { resource: RESOURCE },
  authorizeEndpoint: '/authorize',
  tokenEndpoint: '/token',
  clientRegistrationEndpoint: '/register',
  scopesSupported: ['notes:read', 'notes:admin'],
  defaultHandler: {
    async fetch(request, providerEnv) {
      const asked = await providerEnv.OAUTH_PROVIDER.parseAuthRequest(request)
      const { redirectTo } = await providerEnv.OAUTH_PROVIDER.completeAuthorization({
        request: asked, userId: 'ada', scope: asked.scope, props: { plan: 'pro' }, metadata: {},
      })
      return Response.redirect(redirectTo, 302)
    },
  },
})

async function through(request: Request): Promise<Response> {
  const ctx = createExecutionContext()
  const response = await provider.fetch(request, env as ProviderEnv, ctx)
  await waitOnExecutionContext(ctx)
  return response
}

const b64url = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

/** Registration, authorization with PKCE and the code exchange, as an MCP client does them: an access token for `scope`. */
async function tokenFor(scope: string): Promise<string> {
  const registered = await through(new Request(`${ORIGIN}/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'test' }),
  }))
  const { client_id } = await registered.json() as { client_id: string }
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)).buffer)
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const query = new URLSearchParams({
    response_type: 'code', client_id, redirect_uri: REDIRECT, scope, state: 's', code_challenge: challenge, code_challenge_method: 'S256', resource: RESOURCE,
  })
  const authorized = await through(new Request(`${ORIGIN}/authorize?${query}`))
  const code = new URL(authorized.headers.get('location')!).searchParams.get('code')!
  const exchanged = await through(new Request(`${ORIGIN}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id, code_verifier: verifier, resource: RESOURCE }),
  }))
  const body = await exchanged.json() as { access_token?: string }
  expect(body.access_token, JSON.stringify(body)).toBeTypeOf('string')
  return body.access_token!
}

function mcp(method: string, params: Record<string, unknown>, token?: string): Promise<Response> {
  const request = mcpRequest(method, params)
  if (token) request.headers.set('authorization', `Bearer ${token}`)
  return through(new Request(request.url.replace('https://mcp.example.com', ORIGIN), request))
}

describe('behind workers-oauth-provider', () => {
  it("takes the provider's verified identity: the user, the client, the scopes and the grant's props reach ctx.auth", async () => {
    const token = await tokenFor('notes:read')
    const res = await mcp('tools/call', { name: 'whoami', arguments: {} }, token)
    const seen = JSON.parse(((await res.json()) as any).result.content[0].text)
    expect(seen).toMatchObject({ principal: 'ada', auth: { subject: 'ada', scopes: ['notes:read'], claims: { plan: 'pro' } } })
    expect(seen.auth.clientId).toBeTypeOf('string')
    expect(seen.auth.expiresAt).toBeGreaterThan(Date.now() / 1000)
  })

  it('answers 403 insufficient_scope for a tool the grant lacks the scope of, and runs it with the scope', async () => {
    const refused = await mcp('tools/call', { name: 'purge', arguments: {} }, await tokenFor('notes:read'))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toContain(`error="insufficient_scope", error_description="tools/call of purge needs scopes this request was not granted: notes:admin", scope="notes:admin", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`)
    const allowed = await mcp('tools/call', { name: 'purge', arguments: {} }, await tokenFor('notes:read notes:admin'))
    expect(((await allowed.json()) as any).result.content[0].text).toBe('purged')
  })

  it('never lets a request without a token reach the server: the provider challenges it', async () => {
    const res = await mcp('tools/call', { name: 'whoami', arguments: {} })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=')
  })
})
