/**
 * The runtime processes: AWS's own runtime client (npm `aws-lambda-ric`), found in the project that runs the
 * function, loading the handler as Lambda's Node.js runtime does; and what to tell the user when one cannot
 * start. Its files moved between versions (3.x: bin/index.mjs, dist/rapid-client.node; 4.x: index.mjs,
 * rapid-client.node), so only its package.json `bin` is relied on.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A failure the user can fix: its message says how; no stack trace needed. */
export class SetupError extends Error {}

const BUILD = `  npm approve-scripts aws-lambda-ric && npm rebuild aws-lambda-ric
Its install script builds the native part (Linux only, a few minutes): it needs cmake, autoconf, automake, libtool, make and g++.`

/** The runtime client's executable, as the project at `root` (or this package's own tree) resolves it. */
export function runtimeClient(root: string): string {
  for (const from of [join(root, 'index.js'), import.meta.url]) {
    let manifest: string
    try {
      manifest = createRequire(from).resolve('aws-lambda-ric/package.json')
    } catch {
      continue
    }
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> }
    const file = typeof bin === 'string' ? bin : bin?.['aws-lambda-ric']
    if (file) return join(dirname(manifest), file)
  }
  throw new SetupError(`aws-lambda-ric is not installed: the function runs under AWS's runtime client, which the project must have:
  npm install -D aws-lambda-ric
and, where npm did not run its install script (npm 11 asks for it to be approved):
${BUILD}`)
}

/** One runtime process: the runtime client `ric` loading `handler` from `root`, polling the Runtime API at `api`. */
export function spawnRuntime(ric: string, root: string, handler: string, api: string, env: Readonly<Record<string, string | undefined>> = {}): ChildProcess {
  return spawn(process.execPath, [ric, handler], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      AWS_LAMBDA_RUNTIME_API: api,
      AWS_LAMBDA_FUNCTION_NAME: 'mcp-edge',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
      // Lambda sets these too, and aws-lambda-ric 4 refuses to invoke without them.
      AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/mcp-edge',
      AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${randomBytes(16).toString('hex')}`,
      LAMBDA_TASK_ROOT: root,
      _HANDLER: handler,
      // The function's own NODE_OPTIONS (Lambda lets a function set it), never this CLI's: a loader the CLI
      // runs under (tsx, a test runner's) is not in Lambda's runtime.
      NODE_OPTIONS: env.NODE_OPTIONS ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Why a runtime process ended before it asked for an invocation, and what to do about it. */
export function whyNotStarted(handler: string, initError: string | undefined, output: string, code: number | null): string {
  if (initError !== undefined) {
    const { errorType, errorMessage } = parseError(initError)
    const why = `${handler} failed to load: ${errorType}: ${errorMessage}`
    // esbuild's ES module output has no require() for the CommonJS packages bundled into it (ioredis).
    if (/Dynamic require of /.test(errorMessage)) {
      return `${why}\nThe bundle is an ES module with CommonJS code in it (ioredis is) that calls require(). Build it with this esbuild banner:\n  --banner:js="import { createRequire as topLevelCreateRequire } from 'node:module'; const require = topLevelCreateRequire(import.meta.url);"\n(in a SAM template: Banner, a list with that one item; see the README, Deploy to AWS Lambda)`
    }
    return why
  }
  if (/rapid-client\.node/.test(output)) {
    return `aws-lambda-ric's native part is not built (its install script did not run):\n${BUILD}\n\n${output.trim()}`
  }
  return `the runtime client exited (code ${code}) before asking for an invocation:\n${output.trim()}`
}

function parseError(payload: string): { errorType: string; errorMessage: string } {
  try {
    const { errorType, errorMessage } = JSON.parse(payload) as { errorType?: unknown; errorMessage?: unknown }
    return { errorType: String(errorType ?? 'Error'), errorMessage: String(errorMessage ?? '') }
  } catch {
    return { errorType: 'Error', errorMessage: payload }
  }
}
