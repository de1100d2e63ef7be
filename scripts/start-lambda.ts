/**
 * `npm run start:lambda`: examples/everything built as `sam build` builds template.yaml's function, served by
 * the mcp-edge-lambda command (adapters/lambda/local/cli.ts) at http://127.0.0.1:${PORT:-9000}/mcp on real
 * runtime client processes (LAMBDA_INSTANCES at once, default 2; LAMBDA_TIMEOUT_S, default 30). The
 * function gets this environment: REDIS_URL, MCP_REQUEST_STATE_SECRET and the rest, as on AWS.
 * MCP_AUTH_ISSUER (with MCP_AUTH_JWKS_URI) turns on authorization, as for npm start; MCP_RESOURCE_URL
 * defaults to this address.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { fail, run } from '../adapters/lambda/local/cli.js'
import { buildLambda } from './build-lambda.js'

execFileSync(fileURLToPath(new URL('lambda-ric.sh', import.meta.url)), { stdio: 'inherit' })
const built = await buildLambda('dist/lambda/everything')
const port = process.env.PORT ?? '9000'
if (process.env.MCP_AUTH_ISSUER) process.env.MCP_RESOURCE_URL ??= `http://127.0.0.1:${port}/mcp`
await run([built.file, '--handler', built.handler, '--port', port, '--instances', process.env.LAMBDA_INSTANCES ?? '2', '--timeout', process.env.LAMBDA_TIMEOUT_S ?? '30']).catch(fail)
