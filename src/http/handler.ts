import { ERROR, HEADER } from '../protocol/constants.js'
import { errorResponse, McpError, toMcpError } from '../protocol/errors.js'
import { classify, readId, resultResponse, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { Cancellation } from '../server/cancellation.js'
import { dispatch, type Call } from '../server/dispatch.js'
import { prepare, type Prepared } from '../server/prepare.js'
import type { McpServer } from '../server/server.js'
import { DEFAULT_MAX_BODY_BYTES, readBody } from './body.js'
import { listen, type ListenContext, type ListenOptions } from './listen.js'
import { checkMcpHeaders } from './mcp-headers.js'
import { corsHeaders, preflightHeaders, requestGuard, type SecurityOptions } from './security.js'
import { keepAlive, SSE_HEADERS, sseStream, type KeepAlive, type SseStream } from './sse.js'

export interface HandlerOptions extends SecurityOptions {
  /** Largest request body accepted, in bytes (default 4 MB); larger ones get 413. */
  maxBodyBytes?: number
  /** Interval of SSE keep-alive comments in ms (default 15 s; 0 turns them off). */
  keepAliveMs?: number
  listen?: ListenOptions
  /**
   * Who is asking, when requests are authenticated (e.g. the subject of a verified token). requestState is
   * bound to it, so that one user's pending input request cannot be completed by another.
   */
  principal?: (request: Request, runtime: RuntimeContext) => string | undefined | Promise<string | undefined>
}

/** What a runtime hands to each request besides the Request itself. */
export interface RuntimeContext {
  /** Passed to handlers as `ctx.env` (Workers bindings, Lambda context). */
  env?: unknown
  waitUntil?: (promise: Promise<unknown>) => void
}

export interface FetchHandler {
  (request: Request, runtime?: RuntimeContext): Promise<Response>
  /** Ends every open listen stream gracefully (for shutdown); in-flight requests run to completion. */
  close(): Promise<void>
}

/**
 * The whole stateless request path as a Web-standard fetch handler: it answers whatever path it is given,
 * so mount it where the MCP endpoint should be (`createApp` does that on Hono).
 */
export function createFetchHandler(server: McpServer, options: HandlerOptions = {}): FetchHandler {
  const keepAlives = keepAlive(options.keepAliveMs ?? 15_000)
  const context: HandlerContext = {
    server,
    principal: options.principal,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    keepAlives,
    listen: { ...options.listen, keepAlives, open: new Set() },
  }
  const guard = requestGuard(options)
  const handler = async (request: Request, runtime: RuntimeContext = NO_RUNTIME) => {
    const refused = guard(request)
    if (refused) return json(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, `Forbidden: ${refused}`)), 403)
    const cors = corsHeaders(request)
    switch (request.method) {
      case 'POST':
        return withHeaders(await post(context, request, runtime), cors)
      case 'OPTIONS':
        return new Response(null, { status: 204, headers: preflightHeaders(request) })
      default:
        // Older clients probe with GET (standalone SSE stream) and DELETE (session end); neither exists here.
        return withHeaders(json(errorResponse(undefined, new McpError(-32000, 'Method not allowed.')), 405, { allow: 'POST, OPTIONS' }), cors)
    }
  }
  return Object.assign(handler, {
    async close() {
      for (const end of [...context.listen.open]) end()
    },
  })
}

interface HandlerContext {
  server: McpServer
  principal: HandlerOptions['principal']
  maxBodyBytes: number
  keepAlives: KeepAlive
  listen: ListenContext
}

async function post(context: HandlerContext, request: Request, runtime: RuntimeContext): Promise<Response> {
  const { server } = context
  const type = request.headers.get('content-type')
  if (type !== 'application/json' && type?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    return json(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, 'Content-Type must be application/json')), 415)
  }
  let body: unknown
  try {
    body = JSON.parse(await readBody(request, context.maxBodyBytes))
  } catch (e) {
    const error = e instanceof McpError ? e : new McpError(ERROR.PARSE, 'Parse error: the body is not valid JSON')
    return json(errorResponse(undefined, error), error.status)
  }
  const id = readId(body)
  try {
    const incoming = classify(body)
    // Notifications need no answer; over HTTP the stateless protocol defines none a server must act on.
    if (incoming.kind === 'notification') return new Response(null, { status: 202 })
    const message = incoming.message
    const call = prepare(server, message, {
      versionHeader: request.headers.get(HEADER.protocolVersion)?.trim(),
      check: (profile) => checkMcpHeaders(request.headers, message.method, message.params ?? {}, profile, server),
    })
    if (context.principal) call.principal = await context.principal(request, runtime)
    if (call.method === 'subscriptions/listen') {
      return await listen(server, { ...call, signal: request.signal }, context.listen)
    }
    return await respond(server, call, request, runtime, context.keepAlives)
  } catch (e) {
    return errorJson(id, e)
  }
}

/**
 * Runs the request. The answer is one JSON object unless the handler sends a notification (progress, log)
 * before its result: then the response becomes an SSE stream carrying those and the result. The client
 * closing that stream, or the request's own abort signal, aborts the handler; nothing is written after.
 */
function respond(server: McpServer, prepared: Prepared, request: Request, runtime: RuntimeContext, keepAlives: KeepAlive): Promise<Response> {
  return new Promise<Response>((resolve) => {
    let stream: SseStream | undefined
    let settled = false
    const cancel = new Cancellation(() => request.signal)
    const emit = (message: JsonRpcNotification) => {
      if (settled || cancel.aborted) return
      if (!stream) {
        stream = sseStream(keepAlives, () => cancel.abort(new Error('client closed the stream')))
        // A stream lives on: from now on the request's own signal aborts the handler too.
        void cancel.signal
        resolve(new Response(stream.body, { status: 200, headers: SSE_HEADERS }))
      }
      stream.write(message)
    }
    const finish = (message: JsonObject, status: number) => {
      settled = true
      if (!stream) return resolve(json(message, status))
      if (!cancel.aborted) stream.write(message)
      stream.close()
    }
    const call: Call = Object.assign(prepared, { cancel, emit, request, env: runtime.env, waitUntil: runtime.waitUntil })
    dispatch(server, call).then(
      (result) => finish(resultResponse(prepared.id, result), 200),
      (e) => {
        const error = toMcpError(e)
        finish(errorResponse(prepared.id, error), error.status)
      },
    )
  })
}

function errorJson(id: JsonRpcId | undefined, e: unknown): Response {
  const error = toMcpError(e)
  return json(errorResponse(id, error), error.status)
}

const JSON_HEADERS = { 'content-type': 'application/json' }
const NO_RUNTIME: RuntimeContext = {}

function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS })
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v)
  return response
}
