/**
 * `npm start` with MCP_AUTH_ISSUER: the everything server in a process of its own, as an OAuth resource
 * server trusting the tests' local authorization server, whose keys it finds through the issuer's
 * metadata (no MCP_AUTH_JWKS_URI) and whose resource URL is its default, http://127.0.0.1:$PORT/mcp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resourceServerChecks, type AuthTarget } from '../helpers/auth-checks.js'
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { freePort } from '../helpers/port.js'

let as: AuthServer
let server: EverythingProcess
let target: AuthTarget

beforeAll(async () => {
  as = await startAuthServer()
  const port = await freePort()
  server = await startEverythingProcess({ MCP_AUTH_ISSUER: as.issuer, PORT: String(port) })
  target = { url: server.url, resource: `http://127.0.0.1:${port}/mcp` }
}, 30_000)

afterAll(async () => {
  await server?.stop()
  await as?.close()
})

describe('npm start with MCP_AUTH_ISSUER', () => {
  it('says at start-up that authorization is on, and whose tokens it takes', () => {
    expect(server.log()).toMatch(new RegExp(`listening on ${server.url} \\| versions [^|]+ \\| backplane \\w+ \\| auth on \\|`))
    expect(server.log()).toContain(`mcp-edge: tokens of ${as.issuer} for ${target.resource}`)
  })

  resourceServerChecks(() => ({ target, as }))
})
