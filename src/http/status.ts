import { ERROR } from '../protocol/constants.js'
import type { Answer } from '../exchange/exchange.js'

/**
 * The HTTP status of an answer: the one place where protocol outcomes become statuses (Streamable HTTP,
 * DIGEST §5). A malformed request (envelope, version, headers) is 400; a method this server does not have
 * is 404, except to a 2025 client, which takes 404 for an expired session and so gets it in-band; a
 * missing client capability is 400; everything a method answers, error or not, travels in-band with 200.
 */
export function answerStatus(answer: Answer): number {
  if (answer.ok) return 200
  const { stage, error, profile } = answer
  if (stage === 'envelope') return 400
  if (error.code === ERROR.METHOD_NOT_FOUND) return profile?.era === 'legacy' ? 200 : 404
  if (profile && error.code === profile.missingCapabilityCode) return 400
  return 200
}

/** Statuses of what never reaches the exchange core: the transport's own refusals. */
export const TRANSPORT_STATUS = {
  forbidden: 403,
  methodNotAllowed: 405,
  unsupportedMediaType: 415,
  tooLarge: 413,
  /** Not JSON, not UTF-8, not a JSON-RPC message. */
  malformed: 400,
  /** A notification or a response: accepted, nothing to answer. */
  accepted: 202,
} as const
