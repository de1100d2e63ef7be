/**
 * `npm run start:lambda`: examples/everything built as `sam build` builds template.yaml's function, served by
 * the mcp-edge-lambda command (adapters/lambda/local/cli.ts) at http://127.0.0.1:${PORT:-9000}/mcp on real
 * runtime client processes (LAMBDA_INSTANCES at once, default 2; LAMBDA_TIMEOUT_S, default 30). The
 * function gets this environment: REDIS_URL, MCP_REQUEST_STATE_SECRET and the rest, as on AWS.
 * MCP_AUTH_ISSUER (with MCP_AUTH_JWKS_URI) turns on authorization, as for npm start; MCP_RESOURCE_URL
 * defaults to this address. With neither REDIS_URL nor REDIS_CLUSTER_NODES, a private redis-server (when one
 * is on the PATH) plays the Redis a deployment shares between its instances; without one, listen is refused.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { fail, run } from '../adapters/lambda/local/cli.js'
import { buildLambda } from './build-lambda.js'

/** A redis-server of this command's own on a free loopback port, stopped with it; undefined without one. */
async function privateRedis(): Promise<string | undefined> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error) return undefined
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  process.once('exit', () => child.kill())
  for (const end = Date.now() + 5000; spawnSync('redis-cli', ['-p', String(port), 'ping']).stdout?.toString().trim() !== 'PONG'; await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end) throw new Error(`the private redis-server on port ${port} did not answer`)
  }
  return `redis://127.0.0.1:${port}`
}

if (!process.env.REDIS_URL && !process.env.REDIS_CLUSTER_NODES) {
  const url = await privateRedis()
  if (url) {
    process.env.REDIS_URL = url
    console.log(`mcp-edge-lambda: no REDIS_URL: a private redis-server at ${url} is this function's shared Redis (listen, tasks, input requests across instances), as a deployment's would be`)
  } else {
    console.log('mcp-edge-lambda: no REDIS_URL and no redis-server on the PATH: subscriptions/listen is refused (a Lambda instance serves one request at a time, so listen needs a shared backplane)')
  }
}
execFileSync(fileURLToPath(new URL('lambda-ric.sh', import.meta.url)), { stdio: 'inherit' })
// LAMBDA_BUILD_DIR: where the bundle goes (default dist/lambda/everything), for runs side by side.
const built = await buildLambda(process.env.LAMBDA_BUILD_DIR ?? 'dist/lambda/everything')
const port = process.env.PORT ?? '9000'
if (process.env.MCP_AUTH_ISSUER) process.env.MCP_RESOURCE_URL ??= `http://127.0.0.1:${port}/mcp`
await run([built.file, '--handler', built.handler, '--port', port, '--instances', process.env.LAMBDA_INSTANCES ?? '2', '--timeout', process.env.LAMBDA_TIMEOUT_S ?? '30']).catch(fail)
