/**
 * A local Lambda function URL with InvokeMode RESPONSE_STREAM, in front of real runtime processes: each
 * environment is the real `aws-lambda-ric` (native part included) polling its own Runtime API. It does
 * what AWS's front end does: the HTTP request becomes a payload-2.0 event; the streamed response's
 * prelude (JSON, then 8 NUL bytes) becomes status, headers and cookies; the body goes on as it arrives.
 * Concurrent requests run in separate environments, one invocation each at a time, as Lambda runs
 * concurrent invocations on separate instances; an invocation past the function's timeout has its
 * environment killed and replaced (the next request there is a cold start). It starts once the first
 * environments have loaded the handler, or fails with what stopped them (adapters/lambda/local/runtime.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { answer } from './answer.js'
import { readBody, toEvent } from './event.js'
import { startEnvironments, type Environment } from './environments.js'

export type { Environment } from './environments.js'
export { SetupError } from './runtime.js'

export interface FunctionUrlOptions {
  /** Directory of the bundled function. */
  readonly root: string
  /** Handler, as Lambda names it: `file.export` (default `index.handler`). */
  readonly handler?: string | undefined
  /** Runtime processes started at once (default 2). */
  readonly instances?: number | undefined
  /**
   * Most runtime processes at a time (default 10): while all are busy, a request starts another (a cold
   * start), as Lambda scales out; beyond it requests wait, as under a reserved concurrency.
   */
  readonly maxInstances?: number | undefined
  /** The function's timeout (default 30 s); the first processes get as long to load the handler. */
  readonly timeoutMs?: number | undefined
  /** Default 9000; 0 for any free port. */
  readonly port?: number | undefined
  /** Environment of the function besides this process's own (REDIS_URL, MCP_REQUEST_STATE_SECRET, ...). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Small writes are held back until this many bytes are pending, as Lambda does with streamed responses
   * (default 16384; 0 passes every write on at once).
   */
  readonly holdBytes?: number | undefined
  /**
   * A test aid AWS does not have (default off): a request with `x-local-lambda-event: raw` has its body
   * sent as the event itself (an API Gateway or ALB event, a base64 body). Off wherever a browser could
   * reach the emulator, since the event's own Host header would pass the Host check.
   */
  readonly rawEvents?: boolean | undefined
  /** Where the functions' own output goes (default: this process's stderr). */
  readonly log?: ((line: string) => void) | undefined
  /** Told as each invocation ends, with what Lambda bills for it (the CLI prints it as AWS's REPORT line). */
  readonly onReport?: ((report: InvocationReport) => void) | undefined
}

export interface InvocationReport {
  readonly id: string
  /** From the event's delivery until the handler returned (the response, then what it awaited: waitUntil work). */
  readonly durationMs: number
  /** The request's Mcp-Method header, if it had one. */
  readonly method: string
}

export interface FunctionUrl {
  readonly url: string
  readonly port: number
  readonly environments: readonly Environment[]
  close(): Promise<void>
}

export async function startFunctionUrl(options: FunctionUrlOptions): Promise<FunctionUrl> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const holdBytes = options.holdBytes ?? 16_384
  const log = options.log ?? ((line: string) => void process.stderr.write(line))
  const environments = await startEnvironments({
    root: resolve(options.root),
    handler: options.handler ?? 'index.handler',
    env: options.env ?? {},
    instances: options.instances ?? 2,
    maxInstances: options.maxInstances ?? 10,
    startMs: timeoutMs,
    log,
  })

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req)
    if (body === undefined) {
      res.writeHead(413, { 'content-type': 'application/json' }).end('{"message":"Request Entity Too Large"}')
      return
    }
    const event = options.rawEvents && req.headers['x-local-lambda-event'] === 'raw' ? JSON.parse(body.toString('utf8')) : toEvent(req, body)
    const slot = await environments.acquire()
    const invocation = slot.api.invoke(event, timeoutMs)
    // Past the timeout Lambda stops the function, whatever it is doing (its response may be long over), and
    // its environment starts afresh.
    const timer = setTimeout(() => {
      log(`function-url: invocation ${invocation.id} (${req.method} ${req.url} ${req.headers['mcp-method'] ?? ''}) timed out after ${timeoutMs} ms; replacing its environment\n`)
      slot.kill()
    }, timeoutMs + 50)
    // The environment takes another request only once the handler has returned, as on Lambda.
    void invocation.ended.then((durationMs) => {
      clearTimeout(timer)
      environments.release(slot)
      options.onReport?.({ id: invocation.id, durationMs, method: String(req.headers['mcp-method'] ?? '') })
    })
    await answer(await invocation.outcome, res, holdBytes)
  }

  const server: Server = createServer((req, res) => {
    serve(req, res).catch((e) => {
      log(`function-url: ${(e as Error).stack}\n`)
      if (!res.headersSent) res.writeHead(502).end()
      else res.destroy()
    })
  })
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 9000, '127.0.0.1', resolve))
  } catch (error) {
    await environments.close()
    throw error
  }
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    environments: environments.slots,
    async close() {
      server.closeAllConnections()
      await Promise.all([environments.close(), new Promise<void>((resolve) => server.close(() => resolve()))])
    },
  }
}
