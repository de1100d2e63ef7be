/**
 * `npm run start:lambda`: examples/everything as a Lambda function behind a local function URL, at
 * http://127.0.0.1:${PORT:-9000}/mcp, on real runtime client processes (LAMBDA_INSTANCES started at
 * once, default 2, more on demand up to LAMBDA_MAX_INSTANCES, default 10; LAMBDA_TIMEOUT_S, default 30). REDIS_URL and MCP_REQUEST_STATE_SECRET reach the function as on AWS.
 * MCP_AUTH_ISSUER (with MCP_AUTH_JWKS_URI) turns on authorization, as for npm start; MCP_RESOURCE_URL defaults
 * to this address.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LOOPBACK_HOSTS } from '../../src/index.js'
import { buildLambda } from '../build-lambda.js'
import { startFunctionUrl } from './function-url.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
execFileSync(join(root, 'scripts', 'lambda-ric.sh'), { stdio: 'inherit' })
const file = await buildLambda()
const port = Number(process.env.PORT ?? 9000)
const auth = process.env.MCP_AUTH_ISSUER
  ? { MCP_AUTH_ISSUER: process.env.MCP_AUTH_ISSUER, MCP_RESOURCE_URL: process.env.MCP_RESOURCE_URL ?? `http://127.0.0.1:${port}/mcp`, MCP_AUTH_JWKS_URI: process.env.MCP_AUTH_JWKS_URI ?? '' }
  : {}
const running = await startFunctionUrl({
  root: dirname(file),
  port,
  instances: Number(process.env.LAMBDA_INSTANCES ?? 2),
  maxInstances: Number(process.env.LAMBDA_MAX_INSTANCES ?? 10),
  timeoutMs: Number(process.env.LAMBDA_TIMEOUT_S ?? 30) * 1000,
  // A server on loopback is open to DNS rebinding, which a function URL is not: check Host here.
  env: {
    MCP_ALLOWED_HOSTS: process.env.MCP_ALLOWED_HOSTS ?? LOOPBACK_HOSTS.join(','),
    // One function, one configuration: every instance signs input requests with the same secret.
    MCP_REQUEST_STATE_SECRET: process.env.MCP_REQUEST_STATE_SECRET ?? randomBytes(32).toString('base64url'),
    ...auth,
  },
})
console.error(`mcp-edge everything server on a local Lambda function URL: ${running.url} (${running.environments.length} runtime processes${process.env.REDIS_URL ? ', Redis backplane' : ''})`)
const stop = () => void running.close().then(() => process.exit(0))
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
