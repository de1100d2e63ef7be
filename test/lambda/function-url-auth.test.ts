/**
 * template.yaml's function (examples/everything) on the local function URL with MCP_AUTH_ISSUER: real runtime client processes as an
 * OAuth resource server, the JWKS found through the issuer's metadata and cached across invocations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOOPBACK_HOSTS } from '../../src/index.js'
import { call, resourceServerChecks, type AuthTarget } from '../helpers/auth-checks.js'
import { startAuthServer, type AuthServer } from '../helpers/auth-server.js'
import { startFunction, type LocalFunction } from '../helpers/lambda.js'
import { freePort } from '../helpers/port.js'

let as: AuthServer
let fn: LocalFunction
let target: AuthTarget

beforeAll(async () => {
  as = await startAuthServer()
  const port = await freePort()
  const resource = `http://127.0.0.1:${port}/mcp`
  fn = await startFunction(undefined, 'everything-auth', {
    port,
    instances: 1,
    maxInstances: 1,
    timeoutMs: 10_000,
    env: { MCP_AUTH_ISSUER: as.issuer, MCP_RESOURCE_URL: resource, MCP_ALLOWED_HOSTS: LOOPBACK_HOSTS.join(',') },
  })
  target = { url: fn.url, resource }
}, 60_000)

afterAll(async () => {
  await fn?.close()
  await as?.close()
})

describe('examples/everything on the local function URL with MCP_AUTH_ISSUER', () => {
  resourceServerChecks(() => ({ target, as }))

  it('keeps the key set across invocations of one environment: fetched once for many requests', async () => {
    const before = as.jwksFetches
    for (let i = 0; i < 5; i++) expect((await call(target, 'server/discover', {}, await as.token(target.resource))).status).toBe(200)
    // The checks above fetched it already (once, in this one environment); these five fetch nothing.
    expect([before, as.jwksFetches]).toEqual([1, 1])
  })
})
