import type { AuthOptions } from './options.js'

const PREFIX = '/.well-known/oauth-protected-resource'

/** The protected-resource metadata (RFC 9728) of one endpoint: where it is served, and its response. */
export interface ResourceMetadata {
  /** Where clients find it: the path-inserted URL (`…/.well-known/oauth-protected-resource/mcp`). */
  readonly url: string
  /** Paths it is served at: the path-inserted one and the root one, which clients try second. */
  readonly paths: readonly string[]
  respond(request: Request): Response
}

/** The configured resource URL, refused unless it is canonical: nothing may differ from what clients were given. */
export function canonicalResource(resource: string): URL {
  let url: URL
  try {
    url = new URL(resource)
  } catch {
    throw new Error(`auth.resource must be an absolute URL (got ${resource})`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('auth.resource must be an http(s) URL')
  if (url.hash || resource.includes('#')) throw new Error('auth.resource must have no fragment')
  // URL lowercases scheme and host and adds "/" to a bare origin: a configured value it would change is
  // not the canonical form, and tokens and metadata would disagree with it by a byte.
  const expected = url.pathname === '/' && !url.search ? url.origin : url.href
  if (resource !== expected) throw new Error(`auth.resource must be in canonical form: ${expected} rather than ${resource}`)
  return url
}

export function resourceMetadata(options: AuthOptions, issuers: readonly string[]): ResourceMetadata {
  const url = canonicalResource(options.resource)
  const path = url.pathname === '/' ? '' : url.pathname
  const document: Record<string, unknown> = {
    resource: options.resource,
    authorization_servers: issuers,
    // The baseline only: what a client should ask for up front (SEP-2207); more comes by step-up on 403.
    ...(options.scopes?.length ? { scopes_supported: options.scopes } : {}),
    bearer_methods_supported: ['header'],
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation ? { resource_documentation: options.resourceDocumentation } : {}),
  }
  const body = JSON.stringify(document)
  // Public and the same for everyone: any origin may read it (browser-based clients discover through it).
  const cors = { 'access-control-allow-origin': '*' }
  return {
    url: `${url.origin}${PREFIX}${path}`,
    paths: path ? [`${PREFIX}${path}`, PREFIX] : [PREFIX],
    respond(request) {
      switch (request.method) {
        case 'GET':
        case 'HEAD':
          return new Response(request.method === 'GET' ? body : null, {
            status: 200, headers: { ...cors, 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' },
          })
        case 'OPTIONS':
          return new Response(null, {
            status: 204,
            headers: { ...cors, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': 'mcp-protocol-version', 'access-control-max-age': '86400' },
          })
        default:
          return new Response(null, { status: 405, headers: { ...cors, allow: 'GET, HEAD, OPTIONS' } })
      }
    },
  }
}
