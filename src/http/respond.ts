import { INVALID_REQUEST } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import { errorResponse } from '../protocol/jsonrpc.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

/** A JSON response. */
export function json(body: unknown, status: number, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS })
}

/** A refusal by the transport itself, before (or instead of) the exchange core: a JSON-RPC error without an id. */
export function refuse(message: string, status: number, headers?: Record<string, string>, code: number = INVALID_REQUEST): Response {
  return json(errorResponse(undefined, new McpError(code, message)), status, headers)
}
