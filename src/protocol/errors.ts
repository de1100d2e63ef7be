import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, OVERLOADED } from './constants.js'

/**
 * A protocol error: becomes a JSON-RPC error response. Which HTTP status carries it is the HTTP layer's
 * decision (src/http/status.ts), made from the code and the stage of the exchange that failed.
 */
export class McpError extends Error {
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'McpError'
    this.code = code
    this.data = data
  }
}

/**
 * The request was not granted OAuth scopes the operation needs. Over HTTP it is no JSON-RPC error but a
 * 403 challenge naming them (the spec defines no code for it), so that the client can step up.
 */
export class InsufficientScope extends McpError {
  readonly scopes: readonly string[]

  constructor(scopes: readonly string[], what: string) {
    super(INVALID_REQUEST, `${what} needs scopes this request was not granted: ${scopes.join(' ')}`, { requiredScopes: scopes })
    this.name = 'InsufficientScope'
    this.scopes = scopes
  }
}

/** The server will not take this request now: a limit is reached. Try again after `retryAfterSec`. */
export class Overloaded extends McpError {
  /**
   * Whose limit it hit: one client's share (`client`: it should close something first) or what the server
   * holds in all (`server`: any client may retry). src/http/status.ts makes statuses of it.
   */
  readonly fault: 'client' | 'server'
  readonly retryAfterSec: number

  constructor(message: string, fault: 'client' | 'server', retryAfterSec: number) {
    super(OVERLOADED, message, { retryAfterMs: retryAfterSec * 1000 })
    this.name = 'Overloaded'
    this.fault = fault
    this.retryAfterSec = retryAfterSec
  }
}

export const invalidParams = (message: string, data?: unknown) => new McpError(INVALID_PARAMS, message, data)

export const methodNotFound = (method: string) => new McpError(METHOD_NOT_FOUND, `Method not found: ${method}`)

export const internalError = (message = 'Internal error') => new McpError(INTERNAL_ERROR, message)
