import { METHOD_NOT_FOUND } from '../protocol/constants.js'
import { Overloaded } from '../protocol/errors.js'
import type { Answer } from '../exchange/exchange.js'

/**
 * The HTTP status of an answer: the one place where protocol outcomes become statuses (Streamable HTTP,
 * DIGEST §5). A malformed request (envelope, version, headers) is 400; a method this server does not have
 * is 404 and a missing client capability 400, except to a 2025 client, which takes 404 for an ended
 * session and knows no -32021, and so gets both in-band; a limit reached is 429 when the client is over
 * its own share and 503 when the server is full; everything a method answers, error or not, travels
 * in-band with 200.
 */
export function answerStatus(answer: Answer): number {
  if (answer.ok) return 200
  const { stage, error, profile } = answer
  if (error instanceof Overloaded) return error.fault === 'client' ? 429 : 503
  if (stage === 'envelope') return 400
  if (profile?.era === 'legacy') return 200
  if (error.code === METHOD_NOT_FOUND) return 404
  if (profile && error.code === profile.missingCapabilityCode) return 400
  return 200
}

/** Headers an answer's status comes with: when to come back, for a limit reached. */
export function answerHeaders(answer: Answer): Record<string, string> | undefined {
  return !answer.ok && answer.error instanceof Overloaded ? { 'retry-after': String(answer.error.retryAfterSec) } : undefined
}

// Statuses of what never reaches the exchange core: the transport's own refusals.
export const FORBIDDEN = 403
export const METHOD_NOT_ALLOWED = 405
export const UNSUPPORTED_MEDIA_TYPE = 415
export const TOO_LARGE = 413
/** A body that took too long to arrive. */
export const REQUEST_TIMEOUT = 408
/** More than this client may send at once: come back after Retry-After. */
export const TOO_MANY_REQUESTS = 429
/** More than the server takes at once: come back after Retry-After. */
export const SERVICE_UNAVAILABLE = 503
/** Not JSON, not UTF-8, not a JSON-RPC message. */
export const MALFORMED = 400
/** A notification: accepted, nothing to answer. */
export const ACCEPTED = 202
/** The health route of a handler that serves. */
export const HEALTHY = 200
/** The health route of a handler that is closing: a balancer sends its requests elsewhere. */
export const DRAINING = 503
