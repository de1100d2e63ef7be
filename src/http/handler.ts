import { HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID, OVERLOADED, PARSE_ERROR } from '../protocol/constants.js'
import { InsufficientScope, McpError, Overloaded } from '../protocol/errors.js'
import { classify, errorResponse, readId, resultResponse, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { Runtime, Session, Transport } from '../exchange/types.js'
import { Cancellation } from '../exchange/cancellation.js'
import { exchange, guarded, type Answer } from '../exchange/exchange.js'
import { createRuntime, type RuntimeOptions } from '../compose/runtime.js'
import type { AuthGate, Authorization, Identity } from '../auth/gate.js'
import type { AuthInfo, Notify } from '../server/context.js'
import type { McpServer } from '../server/server.js'
import { clientAddress } from './client-address.js'
import { healthRoute } from './health.js'
import { json, refuse } from './respond.js'
import type { RuntimeContext } from './runtime-context.js'
import { summarize, type HandlerSummary } from './summary.js'
import { BodyBudget, BodyHold, BodyRefused, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES, readBody, type BodyLimits } from './body.js'
import { clientShare } from '../exchange/client-share.js'
import { corsHeaders, preflightHeaders, requestGuard, type SecurityOptions } from './security.js'
import type { SessionPlan } from './session/plan.js'
import type { SessionRoutes } from './session/routes.js'
import type { OpenedSession } from './session/session.js'
import { keepAlive, openSse, type KeepAlive, type SseStream } from './sse.js'
import { ACCEPTED, answerHeaders, answerStatus, FORBIDDEN, MALFORMED, METHOD_NOT_ALLOWED, REQUEST_TIMEOUT, SERVICE_UNAVAILABLE, TOO_LARGE, TOO_MANY_REQUESTS, UNSUPPORTED_MEDIA_TYPE } from './status.js'

export type { RuntimeContext } from './runtime-context.js'

export interface HandlerOptions extends RuntimeOptions, SecurityOptions {
  /** Largest request body accepted, in bytes (default 4 MB); larger ones get 413. */
  maxBodyBytes?: number | undefined
  /**
   * Bytes of request bodies held at once, counted as they arrive until the answer (or its stream) begins
   * (default 16 MB); a request that would go over gets 503 with Retry-After.
   */
  maxInFlightBytes?: number | undefined
  /**
   * Bytes of maxInFlightBytes one client holds at once (its principal; anonymous: its address, as for
   * listen streams); default a quarter of it, or maxBodyBytes if larger. Over it: 429 with Retry-After.
   */
  maxInFlightBytesPerClient?: number | undefined
  /** How long a request body may take to arrive, from the first read to the last byte (default 10 s); then 408. */
  bodyTimeoutMs?: number | undefined
  /** Interval of SSE keep-alive comments in ms (default 15 s; 0 turns them off). */
  keepAliveMs?: number | undefined
  /**
   * Authorization as an OAuth 2.1 resource server: each request's bearer token is checked before anything
   * else of it is read, handlers see who asked as `ctx.auth`, and requestState, tasks and listen streams
   * are bound to that principal. Default: none, and every request is anonymous.
   */
  auth?: Authorization | undefined
  /**
   * A health route for load balancers, e.g. `/healthz` (default: none). GET or HEAD there answers 200 with
   * `{"status":"serving"}`, and 503 with `{"status":"closing"}` once `close()` was called, whatever the Host
   * and Origin and without a token (a balancer probes with the instance's address as Host). Route this path
   * to the handler too (createApp, createWorker and the Lambda handlers do).
   */
  healthPath?: string | undefined
  /**
   * A header your reverse proxy sets to the client's address (`x-forwarded-for`, `x-real-ip`,
   * `fly-client-ip`, ...): anonymous clients' shares of the limits are counted by it rather than by the
   * proxy's own address, which every client would share. Set it only behind a proxy that sets or appends
   * it, or clients pick their own share. Of a list, the last entry (the nearest proxy's) counts. Default:
   * none; the platform's address counts (`RuntimeContext.clientAddress`), an IPv6 one by its /64.
   */
  clientAddressHeader?: string | undefined
  /**
   * Sessions for 2025 clients (`Mcp-Session-Id`), turned on by `sessions()` (see there), kept in `store`.
   * Default: none, and a 2025 client is served every request on its own (no GET stream, no subscriptions, no
   * questions mid-call); `serve()` of mcp-edge/node turns them on unless told `false`.
   */
  sessions?: SessionPlan | undefined
}

export interface FetchHandler {
  (request: Request, runtime?: RuntimeContext): Promise<Response>
  /**
   * Begins a shutdown: the health route answers 503 and every open listen stream ends gracefully. Resolves
   * once the tasks running in this process have ended; requests in flight are the host's to wait for (serve()
   * waits for its connections). Then `abort` and `close` end what is left.
   */
  drain(): Promise<void>
  /**
   * Ends what runs now (for shutdown; after `drain` and its grace period): listen streams end gracefully,
   * tasks running here fail; in-flight requests run to completion unless `abort` stops them.
   */
  close(): Promise<void>
  /**
   * Ends every request still running (the end of a shutdown's grace period): each handler is aborted and its
   * client gets a final JSON-RPC error (503 with Retry-After, or the last message of its SSE stream).
   */
  abort(): void
  /** Tells listen streams on every instance sharing the backplane that something changed. */
  readonly notify: Notify
  /**
   * Paths the handler answers besides the endpoint: with `auth`, the protected-resource metadata's
   * (`/.well-known/oauth-protected-resource/…`). Route them to it too.
   */
  readonly metadataPaths: readonly string[]
  /** What it serves and with which services: versions, backplane, auth, tasks store (what serve's start-up line says). */
  readonly summary: HandlerSummary
}

interface HandlerContext {
  readonly runtime: Runtime
  readonly gate: AuthGate | undefined
  readonly body: BodyLimits
  readonly bodies: BodyBudget
  readonly keepAlives: KeepAlive
  readonly clientAddressHeader: string | undefined
  /** Each request that is still running: what `abort` stops. */
  readonly running: Set<{ stop(): void }>
  readonly sessions: SessionRoutes | undefined
}

/**
 * The whole stateless request path as a Web-standard fetch handler: it answers whatever path it is given,
 * so mount it where the MCP endpoint should be (`createApp` does that on Hono). The server definition and
 * the deployment's services (options) make one runtime, shared by every request.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'hello', version: '1.0.0' })
 *   .tool('hello', { description: 'Says hello' }, () => 'Hello')
 * const handler = createFetchHandler(server, { allowedHosts: ['mcp.example.com'], healthPath: '/healthz' })
 *
 * // Deno, Bun or any host of the Fetch API; route the endpoint (and healthPath) to it.
 * export default { fetch: (request: Request) => handler(request) }
 * ```
 */
export function createFetchHandler(server: McpServer, options: HandlerOptions = {}): FetchHandler {
  const runtime = createRuntime(server, options)
  const { telemetry } = runtime
  const gate = options.auth?.gate((e) => runtime.report(e, { during: 'authorization' }), telemetry?.count && ((refusal) => {
    telemetry.count!('token', { 'error.type': refusal.error ?? 'no_token', 'http.response.status_code': refusal.status })
  }))
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const maxInFlightBytes = options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES
  const context: HandlerContext = {
    runtime,
    gate,
    body: { maxBytes: maxBodyBytes, timeoutMs: options.bodyTimeoutMs },
    bodies: new BodyBudget(maxInFlightBytes, options.maxInFlightBytesPerClient ?? Math.max(maxBodyBytes, maxInFlightBytes / 4)),
    running: new Set(),
    keepAlives: keepAlive(options.keepAliveMs ?? 15_000),
    clientAddressHeader: options.clientAddressHeader?.toLowerCase(),
    sessions: sessionRoutes(options),
  }
  const guard = requestGuard(options)
  const metadataPaths = gate?.metadata.paths ?? []
  const health = healthRoute(options.healthPath)
  let closing = false
  const handler = async (request: Request, platform: RuntimeContext = NO_PLATFORM) => {
    const healthy = health(request, closing)
    if (healthy) return healthy
    // The metadata is public, for browser clients of any origin too: only the Host is checked.
    const metadata = gate && request.url.includes('/.well-known/') && metadataPaths.includes(new URL(request.url).pathname)
    const refused = guard(request, !metadata)
    if (refused) return refuse(`Forbidden: ${refused}`, FORBIDDEN)
    if (metadata) return gate.metadata.respond(request)
    const cors = corsHeaders(request)
    switch (request.method) {
      case 'POST':
        return cors ? post(context, request, platform).then((response) => withHeaders(response, cors)) : post(context, request, platform)
      case 'OPTIONS':
        return new Response(null, { status: 204, headers: preflightHeaders(request) })
      case 'DELETE':
        if (context.sessions) return withHeaders(await context.sessions.end(context, request, platform), cors)
        break
      case 'GET':
        if (context.sessions && request.headers.has(HEADER_SESSION_ID)) return withHeaders(await context.sessions.follow(context, request, platform), cors)
    }
    // GET opens a 2025 session's stream, and DELETE ends a session: neither exists without sessions.
    return withHeaders(refuse('Method not allowed.', METHOD_NOT_ALLOWED, { allow: context.sessions ? 'GET, POST, DELETE, OPTIONS' : 'POST, OPTIONS' }, -32000), cors)
  }
  const abort = () => {
    for (const transport of [...context.running]) transport.stop()
  }
  const drain = () => {
    closing = true
    runtime.streams.endAll()
    return runtime.idle()
  }
  const close = () => {
    closing = true
    return runtime.close()
  }
  const summary = summarize(runtime, gate !== undefined, options.healthPath)
  return Object.assign(handler, { drain, close, abort, notify: runtime.notify, metadataPaths, summary })
}

// Promises chained rather than async functions awaited, on the path every request takes: each suspended
// frame and hop costs tools/call throughput.
function post(context: HandlerContext, request: Request, platform: RuntimeContext): Promise<Response> {
  if (!context.gate) return accept(context, request, platform, undefined)
  // Before anything of the request is read: an unauthenticated client learns nothing but where to get a token.
  return context.gate.authenticate(request, platform.env, platform.auth)
    .then((checked) => (checked instanceof Response ? checked : accept(context, request, platform, checked)))
}

/** The routes of 2025 sessions, where `sessions()` turned them on (the options object of 0.1 is refused by name). */
function sessionRoutes({ sessions, store }: HandlerOptions): SessionRoutes | undefined {
  if (!sessions) return undefined
  if (typeof sessions.build !== 'function') throw new TypeError('The sessions option takes sessions({...}) from mcp-edge, which turns 2025 sessions on')
  return sessions.build(store)
}

/** A body refused over a limit, before its method is known. */
function countRefusal(runtime: Runtime, fault: 'client' | 'server', limit: string): void {
  guarded(runtime, () => runtime.telemetry?.count?.('refusal', { 'mcp.refusal.fault': fault, 'mcp.refusal.limit': limit }))
}

/** A body refused before it was parsed: the status it says, counted by the limit it met. */
function refuseBody(runtime: Runtime, e: BodyRefused): Response {
  switch (e.status) {
    case 413:
      countRefusal(runtime, 'client', 'maxBodyBytes')
      return refuse(e.message, TOO_LARGE)
    case 408:
      countRefusal(runtime, 'client', 'bodyTimeoutMs')
      return refuse(e.message, REQUEST_TIMEOUT, { connection: 'close' })
    case 429:
      countRefusal(runtime, 'client', 'maxInFlightBytesPerClient')
      return refuse(e.message, TOO_MANY_REQUESTS, { 'retry-after': '1' }, OVERLOADED)
    case 503:
      countRefusal(runtime, 'server', 'maxInFlightBytes')
      return refuse(e.message, SERVICE_UNAVAILABLE, { 'retry-after': '1' }, OVERLOADED)
  }
  return refuse(e.message, MALFORMED, undefined, PARSE_ERROR)
}

function accept(context: HandlerContext, request: Request, platform: RuntimeContext, identity: Identity | undefined): Promise<Response> {
  const type = request.headers.get('content-type')
  if (type !== 'application/json' && type?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    return Promise.resolve(refuse('Content-Type must be application/json', UNSUPPORTED_MEDIA_TYPE))
  }
  // The body's bytes count against what the handler holds, and its client's share, until the answer (or its stream) begins.
  const client = clientShare(identity?.principal, { clientAddress: clientAddress(request.headers, context.clientAddressHeader, platform.clientAddress) })
  const hold = new BodyHold(client)
  return parse(context, request, platform, identity, hold).finally(() => context.bodies.give(hold))
}

async function parse(context: HandlerContext, request: Request, platform: RuntimeContext, identity: Identity | undefined, hold: BodyHold): Promise<Response> {
  let body: unknown
  try {
    body = JSON.parse(await readBody(request, context.body, context.bodies, hold, platform.body?.()))
  } catch (e) {
    if (!(e instanceof BodyRefused)) return refuse('Parse error: the body is not valid JSON', MALFORMED, undefined, PARSE_ERROR)
    return refuseBody(context.runtime, e)
  }
  const { sessions } = context
  const sessionId = request.headers.get(HEADER_SESSION_ID)
  let session: OpenedSession | undefined
  if (sessions && sessionId) {
    const found = await sessions.lookup(context, sessionId, identity?.principal)
    if (found instanceof Response) return found
    session = found
    // The client's answer to a request we sent it, on whichever instance holds that request.
    if (sessions.isAnswer(body)) return sessions.answered(context, session, body, identity?.principal, request, platform)
  }
  let message: JsonRpcRequest
  try {
    const incoming = classify(body)
    // Notifications need no answer; over HTTP the stateless protocol defines none a server must act on.
    if (incoming.kind === 'notification') return new Response(null, { status: ACCEPTED })
    message = incoming.message
  } catch (e) {
    return json(errorResponse(readId(body), e as McpError), MALFORMED)
  }
  return respond(context, message, request, platform, identity, session)
}

/**
 * Runs the request. The answer is one JSON object unless the method sends a notification (progress, log,
 * a listen acknowledgement) before its result: then the response becomes an SSE stream carrying those and
 * the result. The client closing that stream, or the request's own abort signal, aborts the method;
 * nothing is written after.
 */
function respond(context: HandlerContext, message: JsonRpcRequest, request: Request, platform: RuntimeContext, identity: Identity | undefined, session: OpenedSession | undefined): Promise<Response> {
  // Only `transport` is in the scope the callbacks below keep: a listen stream holds them for its whole life,
  // and with them anything another callback here named (the parsed request, some 300 bytes: see withSession).
  const transport = new HttpTransport(context, message.id, request, platform, identity)
  if (session) transport.session = context.sessions!.attach(context.runtime, session, transport)
  const response = new Promise<Response>((resolve) => void (transport.resolve = resolve))
  context.running.add(transport)
  const done = exchange(context.runtime, message, transport)
  const answered = context.sessions && message.method === 'initialize' ? withSession(context.sessions, context.runtime, message, transport, done) : done
  void answered.then((answer) => transport.answer(answer))
  return response
}

/** A 2025 client's initialize: its session begins once answered, its id going out with the answer. */
function withSession(sessions: SessionRoutes, runtime: Runtime, message: JsonRpcRequest, transport: HttpTransport, done: Promise<Answer>): Promise<Answer> {
  return done.then((a) => sessions.issued(runtime, message, transport.principal, a, (id) => void (transport.sessionId = id)))
}

/**
 * One HTTP request as the exchange sees it, and its way back: a JSON answer, or an SSE stream from the
 * first notification on. One object rather than closures over a scope, and what the platform knows read
 * through getters rather than copied: a listen stream holds this for its whole life.
 */
class HttpTransport implements Transport {
  readonly versionHeader: string | undefined
  readonly cancel: Cancellation
  /** Settles the response; dropped once called: a stream would hold its promise and scope for nothing. */
  resolve: ((response: Response) => void) | undefined
  session: Session | undefined
  /** The session an initialize began: its id goes out with the answer. */
  sessionId: string | undefined
  #stream: SseStream | undefined
  #settled = false
  #bare: Request | undefined

  constructor(
    private readonly context: HandlerContext,
    private readonly id: JsonRpcId,
    private readonly raw: Request,
    private readonly platform: RuntimeContext,
    private readonly identity: Identity | undefined,
  ) {
    this.cancel = new Cancellation(raw)
    this.versionHeader = raw.headers.get(HEADER_PROTOCOL_VERSION)?.trim()
  }

  get principal(): string | undefined {
    return this.identity?.principal
  }

  get auth(): AuthInfo | undefined {
    return this.identity?.auth
  }

  get env(): unknown {
    return this.platform.env
  }

  get waitUntil(): ((promise: Promise<unknown>) => void) | undefined {
    return this.platform.waitUntil
  }

  get deadline(): number | undefined {
    return this.platform.deadline
  }

  get buffered(): boolean | undefined {
    return this.platform.buffered
  }

  get keepsSessions(): boolean {
    return this.context.sessions !== undefined
  }

  get clientAddress(): string | undefined {
    return clientAddress(this.raw.headers, this.context.clientAddressHeader, this.platform.clientAddress)
  }

  /** Handlers get the request without its token (made when first asked for): nothing to pass upstream. */
  get request(): Request {
    return this.identity ? (this.#bare ??= withoutCredentials(this.raw)) : this.raw
  }

  header(name: string): string | null {
    return this.raw.headers.get(name)
  }

  emit(notification: JsonRpcNotification, eventId?: string): void {
    if (this.#settled || this.cancel.aborted || this.platform.buffered) return
    this.#stream ??= this.#open()
    this.#stream.write(notification, eventId)
  }

  #open(): SseStream {
    const { stream, response } = openSse(this.context.keepAlives, this.platform, this.raw, this.cancel)
    this.#respond(response)
    return stream
  }

  answer(answer: Answer): void {
    if (!this.#settle()) return
    const { context } = this
    // Scopes are checked before the method runs, so no stream has begun: the challenge is the whole answer.
    if (!answer.ok && answer.error instanceof InsufficientScope && context.gate) {
      return this.#respond(context.gate.forbidden(answer.error.scopes, answer.error.message))
    }
    const body = answer.ok ? answer.result && resultResponse(answer.id, answer.result) : errorResponse(answer.id, answer.error)
    // Limits are checked before a stream opens too: a refusal is a plain JSON answer with its status.
    if (!this.#stream) {
      const headers = this.sessionId ? { ...answerHeaders(answer), [HEADER_SESSION_ID]: this.sessionId } : answerHeaders(answer)
      return this.#respond(body ? json(body, answerStatus(answer), headers) : new Response(null, { status: 204 }))
    }
    // Aborted by the time limit, the stream is still the client's: it gets the error. A client that left
    // reads nothing more, and its stream takes no more writes (src/http/sse.ts).
    if (body) this.#stream.write(body)
    this.#stream.close()
  }

  /** At the end of a shutdown's grace period: the client is told, whatever the handler does with its abort. */
  stop(): void {
    if (!this.#settle()) return
    const { id } = this
    const refusal: Answer = {
      ok: false, id, profile: undefined, stage: 'method',
      error: new Overloaded('The server shut down before this request finished: send it again', 'server', 1),
    }
    const error = errorResponse(id, refusal.error)
    if (this.#stream) {
      this.#stream.write(error)
      this.#stream.close()
    } else {
      this.#respond(json(error, answerStatus(refusal), answerHeaders(refusal)))
    }
    this.cancel.abort(new Error('the server is shutting down'))
  }

  #respond(response: Response): void {
    this.resolve!(response)
    this.resolve = undefined
  }

  /** False when answered or stopped already. */
  #settle(): boolean {
    if (this.#settled) return false
    this.#settled = true
    this.context.running.delete(this)
    return true
  }
}

const NO_PLATFORM: RuntimeContext = {}

function withoutCredentials(request: Request): Request {
  const headers = new Headers(request.headers)
  headers.delete('authorization')
  return new Request(request.url, { method: request.method, headers, signal: request.signal })
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  if (!headers) return response
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v)
  return response
}
