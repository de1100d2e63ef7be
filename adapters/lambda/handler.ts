import { createFetchHandler, ERROR, McpError, type HandlerOptions, type McpServer, type Notify } from '../../src/index.js'
import { errorResponse, internalError } from '../../src/core.js'
import { background, startClock } from './deadline.js'
import type { Plan } from './http.js'
import { isRestEvent, planRestEvent, type RestEvent, type RestResult } from './rest-event.js'
import { awslambda, send, STREAMING, type ResponseStream } from './stream.js'
import { isUrlEvent, planUrlEvent, type UrlEvent, type UrlResult } from './url-event.js'

export interface LambdaOptions extends HandlerOptions {
  /**
   * How long before the function's timeout the answer must be complete (default 1000 ms). Lambda never
   * tells a function that its client left, so the timeout is the only sure end: listen streams end
   * gracefully (with their result) this long before it, the request's abort signal fires at half of it,
   * and at a quarter the response ends with whatever was written.
   */
  deadlineMarginMs?: number | undefined
  /**
   * Bytes of SSE comment written when a stream pauses (default 16384; 0 for none), so that Lambda passes
   * on the small writes it otherwise holds back: a progress notification or keep-alive arrives when sent.
   */
  flushBytes?: number | undefined
}

/** What handlers see as `ctx.env` on Lambda (and `principal` as its second argument's `env`). */
export interface LambdaEnv {
  readonly event: UrlEvent | RestEvent
  readonly context: LambdaContext
}

/** The part of Lambda's context object used here. */
export interface LambdaContext {
  getRemainingTimeInMillis?(): number
  readonly awsRequestId?: string | undefined
  callbackWaitsForEmptyEventLoop?: boolean | undefined
}

/**
 * By default the runtime takes the next invocation only once the event loop is empty, which a Redis
 * connection, a listen subscription or a keep-alive timer never lets happen: the instance would serve one
 * request and then sit until the function's timeout. What must finish (waitUntil) is awaited here instead.
 */
function ownTheEnd(context: LambdaContext): void {
  context.callbackWaitsForEmptyEventLoop = false
}

export type LambdaEvent = UrlEvent | RestEvent

/** A handler marked for response streaming: function URLs (InvokeMode RESPONSE_STREAM), REST APIs with responseTransferMode STREAM. */
export interface StreamingLambdaHandler {
  (event: LambdaEvent, responseStream: ResponseStream, context: LambdaContext): Promise<void>
  readonly notify: Notify
}

/** A handler that returns its response whole: HTTP APIs, ALBs, REST APIs without streaming. */
export interface BufferedLambdaHandler {
  (event: LambdaEvent, context: LambdaContext): Promise<UrlResult | RestResult>
  readonly notify: Notify
}

function planFor(event: unknown): Plan<UrlResult | RestResult> {
  if (isUrlEvent(event)) return planUrlEvent(event)
  if (isRestEvent(event)) return planRestEvent(event)
  // Not an HTTP request (a direct invoke, a queue message): the invoker gets this as the error.
  throw new TypeError('mcp-edge: not an HTTP event (expected a function URL, API Gateway or ALB event)')
}

const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

/** The handler's Response, or one made here (`own`: small, whole, sent even after `stop`). */
interface Answered {
  readonly response: Response
  readonly own: boolean
}

const own = (body: unknown, status: number): Answered => ({ response: json(body, status), own: true })

/**
 * The handler's answer; once `stop` aborts first, a 504 with a JSON-RPC error instead, and the late answer,
 * when it comes, is cancelled (its stream would otherwise run on into later invocations).
 */
function answer(fetch: (request: Request) => Promise<Response>, makeRequest: () => Request, stop: AbortSignal): Promise<Answered> {
  let request: Request
  try {
    request = makeRequest()
  } catch (e) {
    return Promise.resolve(own(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, `Bad request: ${(e as Error).message}`)), 400))
  }
  return new Promise((resolve) => {
    let late = false
    const expire = () => {
      late = true
      resolve(own(errorResponse(undefined, internalError('The function ran out of time before the answer was ready')), 504))
    }
    stop.addEventListener('abort', expire, { once: true })
    fetch(request).then(
      (response) => (late ? void response.body?.cancel().catch(() => {}) : resolve({ response, own: false })),
      () => resolve(own(errorResponse(undefined, internalError()), 500)),
    ).finally(() => stop.removeEventListener('abort', expire))
  })
}

const NEVER = new AbortController().signal

/** A response body that failed after the prelude went out: the client sees the stream end; the operator sees why. */
function reportBodyError(options: LambdaOptions, e: unknown): void {
  try {
    if (options.onError) options.onError(e, { during: 'response' })
    else console.error('mcp-edge: the response body failed:', e)
  } catch {
    // An onError that throws must not fail an invocation whose response is already out.
  }
}

const list = (value: string | undefined) => (value?.trim() ? value.split(',').map((v) => v.trim()) : undefined)

function fetchHandler(server: McpServer, options: LambdaOptions) {
  const secret = options.requestState?.secret ?? (process.env.MCP_REQUEST_STATE_SECRET || undefined)
  if (secret === undefined) console.warn('mcp-edge: no MCP_REQUEST_STATE_SECRET: input requests complete only when every round reaches the same instance')
  if (options.sessions && !(inShared(options.store) && inShared(options.backplane))) {
    console.warn('mcp-edge: sessions() without a shared store and backplane: what a 2025 session changes stays in one instance, '
      + 'and a question asked on one is not answered through another. Give createLambdaHandler redisTaskStore and redisBackplane (mcp-edge/redis).')
  }
  return createFetchHandler(server, {
    ...options,
    // A function URL has its own hostname and Lambda routes by it: no Host check unless one is asked for
    // (the option, or MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS, comma-separated, in the function's environment).
    allowedHosts: options.allowedHosts ?? list(process.env.MCP_ALLOWED_HOSTS) ?? '*',
    allowedOrigins: options.allowedOrigins ?? list(process.env.MCP_ALLOWED_ORIGINS),
    requestState: { ...options.requestState, secret },
  })
}

type Fetch = ReturnType<typeof fetchHandler>

/** A listen stream's default lifetime on Lambda (listen.maxLifetimeMs). */
const LISTEN_LIFETIME_MS = 60_000
/**
 * Listen streams one client may hold at once on Lambda (listen.maxStreamsPerClient), counted over every
 * instance: each holds an instance, and template.yaml reserves 100, so one client cannot take them all.
 */
const LISTEN_PER_CLIENT = 10

const NO_SHARED_BACKPLANE = 'subscriptions/listen needs a shared backplane on Lambda: an instance serves one request at a time, '
  + 'so no change made by another call would reach a stream held in its memory. Give createLambdaHandler a backplane '
  + 'every instance shares (redisBackplane from mcp-edge/redis).'

/** Whether every instance sees the same: anything but the in-memory backplane or store. */
const inShared = (part: { readonly kind?: string | undefined } | undefined) => part !== undefined && part.kind !== 'memory'

/** Whether changes made on other instances reach this one's streams. Warns once (at cold start) if not. */
function shared(backplane: HandlerOptions['backplane']): boolean {
  if (inShared(backplane)) return true
  console.warn(`mcp-edge: ${NO_SHARED_BACKPLANE} Until then, subscriptions/listen is refused.`)
  return false
}

/**
 * One invocation, for both kinds of handler: the event as a Request, the runtime context with the
 * deadline, the answer delivered by `deliver`, then the waitUntil work, all within the function's time.
 */
async function invoke<T>(
  fetch: Fetch, options: LambdaOptions, event: LambdaEvent, context: LambdaContext, buffered: boolean,
  deliver: (answered: Answered, plan: Plan<UrlResult | RestResult>, stop: AbortSignal) => Promise<T>,
): Promise<T> {
  ownTheEnd(context)
  const plan = planFor(event)
  const clock = startClock(context, options.deadlineMarginMs ?? 1000)
  const work = background(clock.stop)
  try {
    const runtime = { env: { event, context } satisfies LambdaEnv, waitUntil: work.waitUntil, deadline: clock.deadline, buffered, clientAddress: plan.clientAddress }
    const answered = await answer((request) => fetch(request, runtime), () => plan.request(clock.signal), clock.stop)
    const delivered = await deliver(answered, plan, clock.stop)
    await work.settle()
    return delivered
  } finally {
    clock.clear()
  }
}

/**
 * Serves an McpServer from a Lambda function whose responses stream: a function URL with InvokeMode
 * RESPONSE_STREAM, or an API Gateway REST API with responseTransferMode STREAM. `export const handler =
 * createLambdaHandler(server, options)`. Progress and logs stream as they happen, and `subscriptions/listen`
 * streams until the function's deadline (`deadlineMarginMs`) ends it with its result.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createLambdaHandler } from 'mcp-edge/lambda'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * // A function URL with InvokeMode RESPONSE_STREAM; set MCP_REQUEST_STATE_SECRET in its environment.
 * export const handler = createLambdaHandler(server)
 * ```
 */
export function createLambdaHandler(server: McpServer, options: LambdaOptions = {}): StreamingLambdaHandler {
  const fetch = fetchHandler(server, {
    ...options,
    listen: {
      // An open stream holds its instance, billed: short streams, which the client simply reopens, and few per client.
      maxLifetimeMs: LISTEN_LIFETIME_MS,
      maxStreamsPerClient: LISTEN_PER_CLIENT,
      ...options.listen,
      ...(options.listen?.unavailable !== undefined || shared(options.backplane) ? {} : { unavailable: NO_SHARED_BACKPLANE }),
    },
  })
  const flushBytes = options.flushBytes ?? 16_384
  const handler = (event: LambdaEvent, responseStream: ResponseStream, context: LambdaContext) =>
    invoke(fetch, options, event, context, false, ({ response, own }, plan, stop) => {
      const sse = response.headers.get('content-type') === 'text/event-stream'
      return send(responseStream, () => plan.prelude(response), response.body, { flushBytes: sse ? flushBytes : 0, stop: own ? NEVER : stop })
        .catch((e) => reportBodyError(options, e))
    })
  const marked = Object.assign(handler, { notify: fetch.notify })
  return (awslambda()?.streamifyResponse(marked) ?? Object.assign(marked, { [STREAMING]: 'response' })) as StreamingLambdaHandler
}

/**
 * Serves an McpServer from a Lambda function whose responses are delivered whole: an API Gateway HTTP API,
 * an ALB, a REST API without streaming. Every answer is one JSON response (progress and logs before a
 * result are dropped), and `subscriptions/listen` is refused with an error that says why.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createBufferedLambdaHandler } from 'mcp-edge/lambda'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * // Behind an API Gateway HTTP API or an ALB (a target group health check can use healthPath).
 * export const handler = createBufferedLambdaHandler(server, { healthPath: '/healthz' })
 * ```
 */
export function createBufferedLambdaHandler(server: McpServer, options: LambdaOptions = {}): BufferedLambdaHandler {
  const fetch = fetchHandler(server, options)
  const handler = (event: LambdaEvent, context: LambdaContext) =>
    invoke(fetch, options, event, context, true, ({ response }, plan) => plan.result(response))
  return Object.assign(handler, { notify: fetch.notify })
}
