import { INVALID_REQUEST } from './constants.js'
import { McpError } from './errors.js'

export type JsonRpcId = string | number
export type JsonObject = Record<string, unknown>

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params?: JsonObject
}

export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: JsonObject
}

export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The id of a message, when it has a usable one, so that even a rejected message gets its id echoed. */
export function readId(value: unknown): JsonRpcId | undefined {
  if (!isObject(value)) return undefined
  const id = value.id
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : undefined
}

/**
 * Sorts a parsed body into a request or a notification; anything else (batches, responses, wrong types) is
 * an invalid request. Clients never send responses: the server sends no requests (MRTR embeds them in results).
 */
export function classify(value: unknown): Incoming {
  if (Array.isArray(value)) throw new McpError(INVALID_REQUEST, 'Batch requests are not supported')
  if (!isObject(value)) throw new McpError(INVALID_REQUEST, 'A JSON-RPC message must be an object')
  if (value.jsonrpc !== '2.0') throw new McpError(INVALID_REQUEST, 'jsonrpc must be "2.0"')
  if (!('method' in value)) {
    const what = 'result' in value || 'error' in value ? 'responses' : 'messages without a method'
    throw new McpError(INVALID_REQUEST, `The server accepts no ${what}`)
  }
  if (typeof value.method !== 'string' || value.method === '') {
    throw new McpError(INVALID_REQUEST, 'method must be a non-empty string')
  }
  if ('params' in value && value.params !== undefined && !isObject(value.params)) {
    throw new McpError(INVALID_REQUEST, 'params must be an object')
  }
  if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification }
  if (readId(value) === undefined) {
    throw new McpError(INVALID_REQUEST, 'id must be a string or an integer')
  }
  return { kind: 'request', message: value as unknown as JsonRpcRequest }
}

export const resultResponse = (id: JsonRpcId, result: JsonObject) => ({ jsonrpc: '2.0' as const, id, result })

export function errorResponse(id: JsonRpcId | undefined, error: McpError) {
  const body: { code: number; message: string; data?: unknown } = { code: error.code, message: error.message }
  if (error.data !== undefined) body.data = error.data
  return id === undefined ? { jsonrpc: '2.0' as const, error: body } : { jsonrpc: '2.0' as const, id, error: body }
}

export const notification = (method: string, params?: JsonObject): JsonRpcNotification =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }
