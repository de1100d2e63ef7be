import { Hono } from 'hono'
import { DEFAULT_HEADERLESS_LEGACY, ERROR, HEADER, META } from '../protocol/constants.js'
import { errorResponse, invalidParams, McpError, methodNotFound } from '../protocol/errors.js'
import { readEnvelope } from '../protocol/envelope.js'
import { classify, isObject, readId, resultResponse, type JsonObject, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import { PROFILES, type Profile } from '../protocol/profiles.js'
import { dispatch, methodSpec, type Call } from '../server/dispatch.js'
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
    const call = prepare(server, request, incoming.message)
    if (call.method === 'subscriptions/listen') {
      return await listen(server, call.id, call.params, call.profile, request.signal, context.keepAlives, context.open, context.listen)
    }
    return await respond(server, call, request, env, context.keepAlives)
  } catch (e) {
    return errorJson(id, e)
  }
}

type Prepared = Omit<Call, 'signal' | 'emit' | 'request' | 'env'>

const LEGACY_VERSION = /^\d{4}-\d{2}-\d{2}$/

/**
 * Validation in the order the conformance suite requires: `_meta` fields (-32602), header against `_meta`
 * version (-32020), version supported (-32022), Mcp-Method/Name/Param (-32020), method known (-32601).
 * Requests without the modern envelope and header are the 2025 era's and are served as such.
 */
function prepare(server: McpServer, request: Request, message: JsonRpcRequest): Prepared {
  const params = message.params ?? {}
  const header = request.headers.get(HEADER.protocolVersion)?.trim()
  const metaVersion = isObject(params._meta) ? params._meta[META.protocolVersion] : undefined
  const legacy = metaVersion === undefined && (header === undefined || (LEGACY_VERSION.test(header) && header < '2026'))
  return legacy ? prepareLegacy(server, message, header ?? DEFAULT_HEADERLESS_LEGACY) : prepareModern(server, request, message, header)
}

function prepareModern(server: McpServer, request: Request, message: JsonRpcRequest, header: string | undefined): Prepared {
  const params = message.params ?? {}
  const envelope = readEnvelope(params)
  const known = PROFILES.get(envelope.protocolVersion)
  if (header !== envelope.protocolVersion) {
    const detail = header === undefined
      ? 'the required MCP-Protocol-Version header is missing'
      : `MCP-Protocol-Version header value '${header}' does not match body value '${envelope.protocolVersion}'`
    throw new McpError(known?.headerMismatchCode ?? ERROR.HEADER_MISMATCH, `Header mismatch: ${detail}`, undefined, 400)
  }
  const profile = known?.era === 'modern' && server.versions.includes(known.version) ? known : undefined
  if (!profile) throw unsupported(server, envelope.protocolVersion, known?.unsupportedVersionCode)
  if (profile.requiresClientInfo && !envelope.clientInfo) {
    throw invalidParams(`Invalid request envelope: _meta["${META.clientInfo}"] is required by ${profile.version}`, undefined, 400)
  }
  checkMcpHeaders(request.headers, message.method, params, profile, server)
  if (!methodSpec(server, profile, message.method)) throw methodNotFound(message.method)
  return {
    id: message.id, method: message.method, params, profile,
    capabilities: envelope.clientCapabilities, clientInfo: envelope.clientInfo, logLevel: envelope.logLevel,
    progressToken: envelope.progressToken,
  }
}

function prepareLegacy(server: McpServer, message: JsonRpcRequest, version: string): Prepared {
  const profile = PROFILES.get(version)
  if (!profile || !server.versions.includes(version)) throw unsupported(server, version)
  // Legacy clients treat 404 as an expired session, so their unknown methods are answered in-band.
  if (!methodSpec(server, profile, message.method)) throw new McpError(ERROR.METHOD_NOT_FOUND, `Method not found: ${message.method}`, undefined, 200)
  const params = message.params ?? {}
  const meta = isObject(params._meta) ? params._meta : {}
  const token = meta.progressToken
  return {
    id: message.id, method: message.method, params, profile,
    // Capabilities were declared at initialize, which a stateless server does not remember.
    capabilities: {},
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
  }
}

const unsupported = (server: McpServer, requested: string, code: number = ERROR.UNSUPPORTED_VERSION) =>
  new McpError(code, `Unsupported protocol version: ${requested}`, { supported: server.versions, requested }, 400)

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
        const error = asMcpError(e)
        finish(errorResponse(prepared.id, error), error.status)
      },
    )
  })
}

function asMcpError(e: unknown): McpError {
  if (e instanceof McpError) return e
  console.error('mcp-edge: unexpected error', e)
  return new McpError(ERROR.INTERNAL, `Internal error${e instanceof Error ? `: ${e.message}` : ''}`)
}

function errorJson(id: JsonRpcId | undefined, e: unknown): Response {
  const error = asMcpError(e)
  return json(errorResponse(id, error), error.status)
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v)
  return response
}
