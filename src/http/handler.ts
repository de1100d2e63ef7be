import { Hono } from 'hono'
import { ERROR, HEADER } from '../protocol/constants.js'
import { errorResponse, McpError, toMcpError } from '../protocol/errors.js'
import { classify, readId, resultResponse, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { dispatch } from '../server/dispatch.js'
import { prepare, type Prepared } from '../server/prepare.js'
import type { McpServer } from '../server/server.js'
import { DEFAULT_MAX_BODY_BYTES, readBody } from './body.js'
import { listen, type ListenOptions, type OpenStreams } from './listen.js'
import { checkMcpHeaders } from './mcp-headers.js'
import { corsHeaders, preflightHeaders, rejectReason, type SecurityOptions } from './security.js'
import { keepAlive, SSE_HEADERS, sseStream, type KeepAlive } from './sse.js'

export interface HandlerOptions extends SecurityOptions {
  /** Largest request body accepted, in bytes (default 4 MB); larger ones get 413. */
  maxBodyBytes?: number
  /** Interval of SSE keep-alive comments in ms (default 15 s; 0 turns them off). */
  keepAliveMs?: number
  listen?: ListenOptions
}

export interface FetchHandler {
  (request: Request, env?: unknown): Promise<Response>
  /** Ends every open listen stream gracefully (for shutdown); in-flight requests run to completion. */
  close(): Promise<void>
}

/**
 * The whole stateless request path as a Web-standard fetch handler: it answers whatever path it is given,
 * so mount it where the MCP endpoint should be (`createApp` does that on Hono).
 */
export function createFetchHandler(server: McpServer, options: HandlerOptions = {}): FetchHandler {
  const context: HandlerContext = {
    server,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    keepAlives: keepAlive(options.keepAliveMs ?? 15_000),
    open: new Set(),
    listen: options.listen ?? {},
  }
  const handler = async (request: Request, env?: unknown) => {
    const refused = rejectReason(request, options)
    if (refused) return json(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, `Forbidden: ${refused}`)), 403)
    const cors = corsHeaders(request)
    switch (request.method) {
      case 'POST':
        return withHeaders(await post(context, request, env), cors)
      case 'OPTIONS':
        return new Response(null, { status: 204, headers: preflightHeaders(request) })
      default:
        // Older clients probe with GET (standalone SSE stream) and DELETE (session end); neither exists here.
        return withHeaders(json(errorResponse(undefined, new McpError(-32000, 'Method not allowed.')), 405, { allow: 'POST, OPTIONS' }), cors)
    }
  }
  return Object.assign(handler, {
    async close() {
      for (const end of [...context.open]) end()
    },
  })
}

/**
 * A Hono app serving the MCP endpoint at `path` (default `/mcp`); mount it in a larger app with
 * `app.route('/', ...)`. `close` ends its listen streams gracefully.
 */
export function createApp(server: McpServer, options: HandlerOptions & { path?: string } = {}): Hono & { close(): Promise<void> } {
  const handler = createFetchHandler(server, options)
  const app = new Hono().all(options.path ?? '/mcp', (c) => handler(c.req.raw, c.env))
  return Object.assign(app, { close: handler.close })
}

interface HandlerContext {
  server: McpServer
  maxBodyBytes: number
  keepAlives: KeepAlive
  open: OpenStreams
  listen: ListenOptions
}

async function post(context: HandlerContext, request: Request, env: unknown): Promise<Response> {
  const { server } = context
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/json') {
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
    if (call.method === 'subscriptions/listen') {
      return await listen(server, call.id, call.params, call.profile, request.signal, context.keepAlives, context.open, context.listen)
    }
    return await respond(server, call, request, env, context.keepAlives)
  } catch (e) {
    return errorJson(id, e)
  }
}

/**
 * Runs the request. The answer is one JSON object unless the handler sends a notification (progress, log)
 * before its result: then the response becomes an SSE stream carrying those and the result. The client
 * closing that stream, or the request's own abort signal, aborts the handler; nothing is written after.
 */
function respond(server: McpServer, prepared: Prepared, request: Request, env: unknown, keepAlives: KeepAlive): Promise<Response> {
  const abort = new AbortController()
  const onAbort = () => abort.abort(request.signal.reason)
  if (request.signal.aborted) onAbort()
  else request.signal.addEventListener('abort', onAbort, { once: true })

  return new Promise<Response>((resolve) => {
    let stream: ReturnType<typeof sseStream> | undefined
    let settled = false
    const emit = (message: JsonRpcNotification) => {
      if (settled || abort.signal.aborted) return
      if (!stream) {
        stream = sseStream(keepAlives, () => abort.abort(new Error('client closed the stream')))
        resolve(new Response(stream.body, { status: 200, headers: SSE_HEADERS }))
      }
      stream.write(message)
    }
    const finish = (message: JsonObject, status: number) => {
      settled = true
      request.signal.removeEventListener('abort', onAbort)
      if (!stream) return resolve(json(message, status))
      if (!abort.signal.aborted) stream.write(message)
      stream.close()
    }
    dispatch(server, { ...prepared, signal: abort.signal, emit, request, env }).then(
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

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v)
  return response
}
