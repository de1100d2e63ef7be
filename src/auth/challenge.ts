/**
 * Refusals of a resource server (RFC 6750 §3): a `WWW-Authenticate: Bearer` challenge naming the metadata
 * (RFC 9728 §5.1) and the scopes needed, and an OAuth error body. A request that sent no token learns only
 * where to get one (no `error`); a bad token gets `invalid_token`; too few scopes `insufficient_scope`
 * with every scope the operation needs, so that one step-up is enough (SEP-2350).
 */
export interface Refusal {
  readonly status: 400 | 401 | 403 | 503
  /** RFC 6750 error code; absent when the request had no credentials at all. */
  readonly error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable' | undefined
  readonly description: string
  readonly scopes?: readonly string[] | undefined
}

/** RFC 6750 quoted values may hold neither `"` nor `\` nor control characters: they are replaced. */
const quoted = (value: string) => `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`

export function challengeResponse(refusal: Refusal, metadataUrl: string): Response {
  const params: string[] = []
  if (refusal.error) {
    params.push(`error=${quoted(refusal.error)}`, `error_description=${quoted(refusal.description)}`)
  }
  if (refusal.scopes?.length) params.push(`scope=${quoted(refusal.scopes.join(' '))}`)
  params.push(`resource_metadata=${quoted(metadataUrl)}`)
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' }
  // An outage of the authorization server is not the client's fault: it is told to come back, not to re-authenticate.
  if (refusal.status === 503) headers['retry-after'] = '5'
  else headers['www-authenticate'] = `Bearer ${params.join(', ')}`
  const body = { error: refusal.error ?? 'invalid_token', error_description: refusal.description }
  return new Response(JSON.stringify(body), { status: refusal.status, headers })
}
