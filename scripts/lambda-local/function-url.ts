/**
 * A local Lambda function URL with InvokeMode RESPONSE_STREAM, in front of real runtime processes: each
 * environment is the real `aws-lambda-ric` (native part included) polling its own Runtime API. It does
 * what AWS's front end does: the HTTP request becomes a payload-2.0 event; the streamed response's
 * prelude (JSON, then 8 NUL bytes) becomes status, headers and cookies; the body goes on as it arrives.
 * Concurrent requests run in separate environments, one invocation each at a time, as Lambda runs
 * concurrent invocations on separate instances; an invocation past the function's timeout has its
 * environment killed and replaced (the next request there is a cold start).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { startRuntimeApi, type Outcome, type RuntimeApi } from './runtime-api.js'

export interface FunctionUrlOptions {
  /** Directory of the bundled function (its index.mjs). */
  readonly root: string
  /** Handler, as Lambda names it (default `index.handler`). */
  readonly handler?: string | undefined
  /** Runtime processes started at once (default 2). */
  readonly instances?: number | undefined
  /**
   * Most runtime processes at a time (default 10): while all are busy, a request starts another (a cold
   * start), as Lambda scales out; beyond it requests wait, as under a reserved concurrency.
   */
  readonly maxInstances?: number | undefined
  /** The function's timeout (default 30 s). */
  readonly timeoutMs?: number | undefined
  readonly port?: number | undefined
  /** Environment of the function (REDIS_URL, MCP_REQUEST_STATE_SECRET, ...). */
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
}

export interface Environment {
  /** The runtime process now serving this environment. */
  readonly pid: number | undefined
  /** How many times a runtime process was started for it (1 = never replaced). */
  readonly starts: number
}

export interface FunctionUrl {
  readonly url: string
  readonly port: number
  readonly environments: readonly Environment[]
  close(): Promise<void>
}

/** The largest request payload Lambda takes for a streaming invocation (6 MB). */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024
const PRELUDE_TYPE = 'application/vnd.awslambda.http-integration-response'
// The package's own bin, wherever a release keeps it (bin/index.mjs in 3.x, index.mjs in 4.x).
const ricManifest = createRequire(import.meta.url).resolve('aws-lambda-ric/package.json')
const ric = join(dirname(ricManifest), (JSON.parse(readFileSync(ricManifest, 'utf8')) as { bin: Record<string, string> }).bin['aws-lambda-ric']!)

/** One runtime process: the real runtime client loading `handler` from `root`, polling the Runtime API at `api`. */
export function spawnRuntime(root: string, handler: string, api: string, env: FunctionUrlOptions['env'] = {}): ChildProcess {
  return spawn(process.execPath, [ric, handler], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      AWS_LAMBDA_RUNTIME_API: api,
      AWS_LAMBDA_FUNCTION_NAME: 'mcp-edge',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
      // The runtime client refuses to start an invocation without them (aws-lambda-ric 4).
      AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/mcp-edge',
      AWS_LAMBDA_LOG_STREAM_NAME: `local/${process.pid}`,
      LAMBDA_TASK_ROOT: root,
      _HANDLER: handler,
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

interface Slot extends Environment {
  starts: number
  backoffMs: number
  api: RuntimeApi
  child: ChildProcess | undefined
  busy: boolean
}

export async function startFunctionUrl(options: FunctionUrlOptions): Promise<FunctionUrl> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const holdBytes = options.holdBytes ?? 16_384
  const log = options.log ?? ((line: string) => process.stderr.write(line))
  let closing = false
  const slots: Slot[] = []
  const queue: ((slot: Slot) => void)[] = []

  const launch = (slot: Slot) => {
    const child = spawnRuntime(options.root, options.handler ?? 'index.handler', slot.api.address, options.env)
    slot.child = child
    slot.starts++
    child.stdout?.on('data', (d: Buffer) => log(d.toString()))
    child.stderr?.on('data', (d: Buffer) => log(d.toString()))
    const started = Date.now()
    child.once('exit', () => {
      if (slot.child !== child) return
      slot.child = undefined
      slot.api.fail('{"errorType":"Runtime.ExitError","errorMessage":"the runtime process exited"}')
      // A function that dies at start would otherwise be restarted in a tight loop.
      slot.backoffMs = Date.now() - started < 1000 ? Math.min(5000, Math.max(100, slot.backoffMs * 2)) : 0
      if (!closing) setTimeout(() => !closing && launch(slot), slot.backoffMs)
    })
  }

  /** A new environment, busy until handed to its first request (or released unused). */
  const addSlot = async (): Promise<Slot> => {
    const slot: Slot = {
      api: await startRuntimeApi(), child: undefined, busy: true, starts: 0, backoffMs: 0,
      get pid() {
        return this.child?.pid
      },
    }
    slots.push(slot)
    launch(slot)
    return slot
  }
  const maxInstances = options.maxInstances ?? 10
  let adding = 0
  for (let i = 0; i < (options.instances ?? 2); i++) (await addSlot()).busy = false

  const acquire = () =>
    new Promise<Slot>((resolve) => {
      const free = slots.find((s) => !s.busy)
      if (free) {
        free.busy = true
        return resolve(free)
      }
      queue.push(resolve)
      if (slots.length + adding < maxInstances) {
        adding++
        addSlot().then(
          (slot) => {
            adding--
            release(slot)
          },
          (e) => {
            adding--
            log(`function-url: could not start an environment: ${(e as Error).message}\n`)
          },
        )
      }
    })
  const release = (slot: Slot) => {
    const next = queue.shift()
    if (next) next(slot)
    else slot.busy = false
  }

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req)
    if (body === undefined) {
      res.writeHead(413, { 'content-type': 'application/json' }).end('{"message":"Request Entity Too Large"}')
      return
    }
    const event = options.rawEvents && req.headers['x-local-lambda-event'] === 'raw' ? JSON.parse(body.toString('utf8')) : toEvent(req, body)
    const slot = await acquire()
    const invocation = slot.api.invoke(event, timeoutMs)
    // Past the timeout Lambda stops the function, whatever it is doing, and its environment starts afresh.
    const timer = setTimeout(() => {
      log(`function-url: invocation ${invocation.id} (${req.method} ${req.url} ${req.headers['mcp-method'] ?? ''}) timed out after ${timeoutMs} ms; replacing its environment\n`)
      slot.child?.kill('SIGKILL')
    }, timeoutMs + 50)
    try {
      await answer(await invocation.outcome, res, holdBytes)
    } finally {
      clearTimeout(timer)
      release(slot)
    }
  }

  const server: Server = createServer((req, res) => {
    serve(req, res).catch((e) => {
      log(`function-url: ${(e as Error).stack}\n`)
      if (!res.headersSent) res.writeHead(502).end()
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 9000, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    environments: slots,
    async close() {
      closing = true
      for (const slot of slots) slot.child?.kill('SIGKILL')
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await Promise.all(slots.map((s) => s.api.close()))
    },
  }
}

/** Writes what the function answered; resolves once its response is over (the environment is free again). */
async function answer(outcome: Outcome, res: ServerResponse, holdBytes: number): Promise<void> {
  if (outcome.kind === 'error') {
    res.writeHead(502, { 'content-type': 'application/json', 'x-amzn-errortype': 'LambdaFunctionError' })
    res.end('{"Message":"Internal Server Error"}')
    return
  }
  if (outcome.kind === 'result') return void writeResult(outcome.payload, res)
  const { body } = outcome
  let head: { statusCode: number; headers: Record<string, string>; cookies: string[] } | undefined
  let pending: Buffer[] = []
  let pendingBytes = 0
  let clientGone = false
  res.once('close', () => (clientGone = !res.writableFinished))
  const flush = () => {
    if (pendingBytes === 0 && pending.length === 0) return
    if (!clientGone) res.write(Buffer.concat(pending))
    pending = []
    pendingBytes = 0
  }
  const pass = (chunk: Buffer) => {
    if (chunk.length === 0) return
    start()
    pending.push(chunk)
    pendingBytes += chunk.length
    if (pendingBytes >= holdBytes) flush()
  }
  let preludeBytes: Buffer | undefined = outcome.contentType === PRELUDE_TYPE ? Buffer.alloc(0) : undefined
  if (!preludeBytes) head = { statusCode: 200, headers: { 'content-type': outcome.contentType }, cookies: [] }
  // Headers go out with the prelude, or without one with the first bytes: a function that fails before
  // either gets the error answer instead.
  const start = () => {
    if (!head || res.headersSent) return
    res.writeHead(head.statusCode, { ...head.headers, ...(head.cookies.length ? { 'set-cookie': head.cookies } : {}) })
    res.flushHeaders()
  }
  // The runtime keeps writing whether or not the client still listens: Lambda never tells the function.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (preludeBytes) {
      preludeBytes = Buffer.concat([preludeBytes, chunk])
      const end = preludeBytes.indexOf(Buffer.alloc(8))
      if (end < 0) continue
      const prelude = JSON.parse(preludeBytes.subarray(0, end).toString('utf8')) as { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }
      head = { statusCode: prelude.statusCode ?? 200, headers: prelude.headers ?? {}, cookies: prelude.cookies ?? [] }
      const rest = preludeBytes.subarray(end + 8)
      preludeBytes = undefined
      start()
      pass(rest)
      continue
    }
    pass(chunk)
  }
  const failed = body.trailers['lambda-runtime-function-error-type']
  if (!res.headersSent) {
    // An error before the prelude: the client sees what a failed invocation gives it.
    if (failed || !head) return answer({ kind: 'error', payload: '' }, res, holdBytes)
    start()
  }
  flush()
  if (!clientGone) res.end()
}

function writeResult(payload: string, res: ServerResponse): void {
  let result: unknown
  try {
    result = JSON.parse(payload)
  } catch {
    result = payload
  }
  const r = result as { statusCode?: unknown; headers?: Record<string, string>; cookies?: string[]; body?: string; isBase64Encoded?: boolean } | null
  if (r && typeof r === 'object' && typeof r.statusCode === 'number') {
    res.writeHead(r.statusCode, { ...r.headers, ...(r.cookies?.length ? { 'set-cookie': r.cookies } : {}) })
    res.end(r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64') : (r.body ?? ''))
    return
  }
  // A result without statusCode is the body itself, as JSON (what a function URL does with it).
  res.writeHead(200, { 'content-type': 'application/json' }).end(typeof result === 'string' ? result : JSON.stringify(result))
}

/** The body, or undefined when it exceeds Lambda's request payload limit. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= MAX_REQUEST_BYTES) chunks.push(c)
    })
    req.on('end', () => resolve(size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

const TEXT = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i

/** The request as a function URL's payload-2.0 event. */
function toEvent(req: IncomingMessage, body: Buffer): object {
  const url = new URL(req.url ?? '/', 'http://localhost')
  const headers: Record<string, string> = {}
  const cookies: string[] = []
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase()
    const value = req.rawHeaders[i + 1] as string
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean))
    else headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`
  }
  const text = TEXT.test(headers['content-type'] ?? '')
  const now = new Date()
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text } : { isBase64Encoded: false }),
  }
}
