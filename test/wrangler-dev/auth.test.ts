/**
 * The everything Worker under `wrangler dev` with MCP_AUTH_ISSUER (npm run dev turns it and
 * MCP_RESOURCE_URL into Worker vars): workerd as an OAuth resource server, fetching the tests' local
 * authorization server's metadata and keys over loopback.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { startWranglerDev } from '../../scripts/wrangler-dev.js'
import { resourceServerChecks, type AuthTarget } from '../helpers/auth-checks.js'
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js'

let as: AuthServer
let dev: Awaited<ReturnType<typeof startWranglerDev>>
let target: AuthTarget

beforeAll(async () => {
  as = await startAuthServer()
  dev = await startWranglerDev([], { MCP_AUTH_ISSUER: as.issuer }, '.wrangler/local-state-auth')
  target = { url: dev.url, resource: dev.url }
}, 90_000)

afterAll(async () => {
  await dev?.stop()
  await as?.close()
})

describe('wrangler dev with MCP_AUTH_ISSUER', () => {
  resourceServerChecks(() => ({ target, as }))
})
