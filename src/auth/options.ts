import type { AuthInfo } from '../server/context.js'

/**
 * Authorization as an OAuth 2.1 resource server (the spec's basic/authorization): every request to the MCP
 * endpoint carries `Authorization: Bearer <token>`, checked before anything else of it is read; the
 * protected-resource metadata (RFC 9728) tells clients where to get one.
 */
export interface AuthOptions {
  /**
   * The canonical URL of the MCP endpoint, exactly as clients are given it (`https://mcp.example.com/mcp`):
   * the metadata's `resource`, byte for byte, and the audience every token must name. Never derived from
   * the Host header, which differs between a function URL, a custom domain and workers.dev.
   */
  resource: string
  /** Issuers of the authorization servers that grant tokens for it (default: the verifier's issuers). */
  authorizationServers?: readonly string[] | undefined
  /**
   * Turns a bearer token into who is asking: `jwtVerifier(...)` or your own. Without one, only identities
   * the platform verified already are accepted (`RuntimeContext.auth`: workers-oauth-provider on Workers).
   */
  verify?: TokenVerifier | undefined
  /** Scopes every request needs (the baseline): advertised as `scopes_supported` and in every challenge. */
  scopes?: readonly string[] | undefined
  /** Scopes that include others (`{ 'mcp:admin': ['mcp:read'] }`): a token granted one has those too. */
  scopeImplies?: Readonly<Record<string, readonly string[]>> | undefined
  /**
   * Leave entries out of lists when the caller lacks their scopes (then lists are `cacheScope: "private"`).
   * Default false: they are listed, and using one gets 403 naming the scopes, so clients can ask for more.
   */
  hideOutOfScope?: boolean | undefined
  /** Shown to users by clients (RFC 9728 `resource_name`). */
  resourceName?: string | undefined
  /** Where people read about this server (RFC 9728 `resource_documentation`). */
  resourceDocumentation?: string | undefined
}

/** What a verifier gets besides the token. */
export interface VerifyContext {
  /** The configured canonical resource URL: the audience the token must name. */
  readonly resource: string
  readonly request: Request
  /** What the runtime passes along (Workers `env`, the Lambda event and context). */
  readonly env: unknown
}

/**
 * Checks an access token. Resolves to who it names, or to undefined (or throws InvalidToken) when the
 * token is not acceptable: the client gets 401 `invalid_token`. Any other failure (the authorization
 * server unreachable) is reported to onError and answered 503, never taken for a bad token.
 */
export type TokenVerifier = ((token: string, context: VerifyContext) => Promise<Verified | undefined>) & {
  /** The issuers it trusts: the default `authorizationServers`. */
  readonly issuers?: readonly string[] | undefined
}

/** What a verifier finds in a token; the scopes it implies are added after. */
export type Verified = Omit<AuthInfo, 'scopes'> & { readonly scopes?: readonly string[] | undefined }

/** A token that is not acceptable; `message` becomes the challenge's `error_description`. */
export class InvalidToken extends Error {
  override readonly name = 'InvalidToken'
}
