/**
 * `mcp-edge-lambda <bundle> [--handler file.export] [--port 9000] [--timeout 30] [--instances 2]`: a bundled
 * Lambda function behind a local function URL (function-url.ts) on AWS's own runtime client, which the
 * project installs (aws-lambda-ric). The function gets this process's environment, as it gets its
 * configuration on AWS, plus what a deployed function has without asking: loopback names as its allowed
 * hosts (a function URL's own hostname is not a loopback one; here a browser page could rebind a name to
 * 127.0.0.1) and one requestState secret for every instance.
 */
import { randomBytes } from 'node:crypto'
import { statSync } from 'node:fs'
import { basename, dirname, extname, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { LOOPBACK_HOSTS } from '../../../src/index.js'
import { SetupError, startFunctionUrl, type FunctionUrl } from './function-url.js'

const USAGE = `usage: mcp-edge-lambda <bundle> [options]
  <bundle>              the function's bundle (dist/index.mjs), or its directory
  --handler file.export the handler as Lambda names it (default: the bundle's name, then .handler;
                        index.handler for a directory)
  --port N              where the function URL listens on 127.0.0.1 (default 9000; 0 for any)
  --timeout S           the function's timeout in seconds (default 30)
  --instances N         runtime processes started at once (default 2; more start on demand, up to 10)`

/** Parses the command line and starts the function URL; resolves once it listens, having printed where. */
export async function run(argv: readonly string[]): Promise<FunctionUrl> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      handler: { type: 'string' },
      port: { type: 'string', default: '9000' },
      timeout: { type: 'string', default: '30' },
      instances: { type: 'string', default: '2' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    console.log(USAGE)
    process.exit(0)
  }
  const [bundle, ...extra] = positionals
  const port = count(values.port, 0)
  const timeout = count(values.timeout, 1)
  const instances = count(values.instances, 1)
  if (bundle === undefined || extra.length > 0 || port === undefined || timeout === undefined || instances === undefined) {
    throw new SetupError(USAGE)
  }
  const isDir = statSync(bundle, { throwIfNoEntry: false })?.isDirectory()
  if (isDir === undefined) throw new SetupError(`${bundle}: no such file or directory`)
  const root = isDir ? bundle : dirname(bundle)
  const handler = values.handler ?? `${isDir ? 'index' : basename(bundle, extname(bundle))}.handler`

  const running = await startFunctionUrl({
    root,
    handler,
    port,
    timeoutMs: timeout * 1000,
    instances,
    maxInstances: Math.max(10, instances),
    env: {
      MCP_ALLOWED_HOSTS: process.env.MCP_ALLOWED_HOSTS ?? LOOPBACK_HOSTS.join(','),
      MCP_REQUEST_STATE_SECRET: process.env.MCP_REQUEST_STATE_SECRET ?? randomBytes(32).toString('base64url'),
    },
    // As AWS writes it to the function's log after each invocation (1 ms granularity, 1,024 MB here): beside
    // the function's own output, on stderr.
    onReport: ({ id, durationMs, method }) => void process.stderr.write(
      `REPORT RequestId: ${id}\tDuration: ${durationMs.toFixed(2)} ms\tBilled Duration: ${Math.max(1, Math.ceil(durationMs))} ms\tMemory Size: 1024 MB${method ? `\tMcp-Method: ${method}` : ''}\n`),
  })
  // Whoever started this may stop reading its output once it has the address: a write then must not end it.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
  console.log(`mcp-edge-lambda: ${running.url} runs ${handler} from ${relative('.', root) || '.'} (${instances} instance${instances === 1 ? '' : 's'}, ${timeout} s timeout)`)
  const stop = () => void running.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return running
}

/** An integer of at least `min`, or undefined. */
function count(text: string | undefined, min: number): number | undefined {
  const n = Number(text)
  return Number.isInteger(n) && n >= min ? n : undefined
}

/** For the bin: a setup failure is its message alone, anything else its stack; both exit 1. */
export function fail(error: unknown): never {
  // Bad flags (ERR_PARSE_ARGS_*) and a port in use (EADDRINUSE) say all in their message too.
  console.error(error instanceof SetupError || typeof (error as { code?: unknown }).code === 'string'
    ? `mcp-edge-lambda: ${(error as Error).message}`
    : error)
  process.exit(1)
}
