// The authorization benchmark server: an echo tool on serve(), as an OAuth resource server checking JWTs
// against AUTH_JWKS_URI when AUTH_ISSUER is set (remembering AUTH_CACHED_TOKENS verified tokens), without
// authorization otherwise.
import { bearerAuth, jwtVerifier, McpServer } from 'mcp-edge'
import { serve } from 'mcp-edge/node'
import { announce } from './child.mjs'

const issuer = process.env.AUTH_ISSUER
const server = new McpServer({ name: 'bench-auth', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text' }, ({ text }) => String(text))

const running = await serve(server, {
  port: Number(process.env.PORT),
  handleSignals: false,
  auth: issuer ? bearerAuth({ resource: process.env.RESOURCE, verify: jwtVerifier({ issuer, jwksUri: process.env.AUTH_JWKS_URI, cachedTokens: Number(process.env.AUTH_CACHED_TOKENS ?? 1000) }) }) : undefined,
})
announce(running.url)
