/**
 * Authorization of the everything server, from environment variables (process.env on Node and Lambda,
 * the Worker's vars on Workers): on when MCP_AUTH_ISSUER names the authorization server whose JWT access
 * tokens are accepted. MCP_AUTH_JWKS_URI says where its keys are (default: its metadata's jwks_uri);
 * MCP_RESOURCE_URL is this endpoint's canonical URL, the audience tokens must name.
 */
import { bearerAuth, jwtVerifier, type Authorization } from '../../src/index.js'

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined)

export function authFromEnv(env: Record<string, unknown>, defaultResource: string | undefined): Authorization | undefined {
  const issuer = text(env.MCP_AUTH_ISSUER)
  if (!issuer) return undefined
  const resource = text(env.MCP_RESOURCE_URL) ?? defaultResource
  if (!resource) throw new Error('MCP_AUTH_ISSUER is set: set MCP_RESOURCE_URL too, to the canonical URL of this endpoint')
  return bearerAuth({
    resource,
    verify: jwtVerifier({ issuer, jwksUri: text(env.MCP_AUTH_JWKS_URI) }),
    resourceName: 'mcp-edge everything server',
  })
}
