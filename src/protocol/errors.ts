import { ERROR } from './constants.js'
import type { JsonRpcId } from './jsonrpc.js'

/**
 * A protocol error: becomes a JSON-RPC error response. `status` is the HTTP status the Streamable HTTP
 * transport answers with; most errors travel in-band with 200, the envelope and header errors do not.
 */
export class McpError extends Error {
  readonly code: number
  readonly data: unknown
  readonly status: number

  constructor(code: number, message: string, data?: unknown, status = defaultStatus(code)) {
    super(message)
    this.name = 'McpError'
    this.code = code
    this.data = data
    this.status = status
  }
}

function defaultStatus(code: number): number {
  switch (code) {
    case ERROR.PARSE:
    case ERROR.INVALID_REQUEST:
    case ERROR.HEADER_MISMATCH:
    case ERROR.MISSING_CAPABILITY:
    case ERROR.UNSUPPORTED_VERSION:
      return 400
    case ERROR.METHOD_NOT_FOUND:
      return 404
    default:
      return 200
  }
}

export const invalidParams = (message: string, data?: unknown, status?: number) =>
  new McpError(ERROR.INVALID_PARAMS, message, data, status)

export const methodNotFound = (method: string, data?: unknown) =>
  new McpError(ERROR.METHOD_NOT_FOUND, `Method not found: ${method}`, data)

export const internalError = (message = 'Internal error') => new McpError(ERROR.INTERNAL, message)

export function errorResponse(id: JsonRpcId | undefined, error: McpError) {
  const body: { code: number; message: string; data?: unknown } = { code: error.code, message: error.message }
  if (error.data !== undefined) body.data = error.data
  return id === undefined ? { jsonrpc: '2.0' as const, error: body } : { jsonrpc: '2.0' as const, id, error: body }
}

/**
 * Any thrown value as a protocol error. Unexpected ones become a bare -32603: their messages may hold what
 * clients must not see (connection strings, paths), so they go to the server's log only.
 */
export function toMcpError(e: unknown): McpError {
  if (e instanceof McpError) return e
  console.error('mcp-edge: unexpected error', e)
  return new McpError(ERROR.INTERNAL, 'Internal error')
}
