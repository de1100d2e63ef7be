/**
 * Errors the server cannot answer with a meaningful message: each gets a short id the client is shown, and
 * goes to onError with where it happened, joined to its trace when telemetry records one.
 */
import type { CoreOptions, ErrorContext, Telemetry } from './types.js'

/** 8 hex digits: short enough to read out, random enough to find one log line among a day's. */
const errorId = () => crypto.randomUUID().slice(0, 8)

/**
 * The default onError: one JSON line on stderr (Node, Lambda's log, Workers Logs), with the error id the
 * client was given, the method, tool and request, and the trace and span ids.
 */
export function logError(error: unknown, context: ErrorContext): void {
  const { name, message, stack } = error instanceof Error ? error : { name: typeof error, message: String(error), stack: undefined }
  console.error(JSON.stringify({ level: 'error', logger: 'mcp-edge', ...context, error: { type: name, message, stack } }))
}

/** Hands an error to onError under a new error id, which it returns (for the client's message). */
export function reporter(onError: NonNullable<CoreOptions['onError']>, telemetry: Telemetry | undefined) {
  return (error: unknown, context: Omit<ErrorContext, 'errorId'>) => {
    const id = errorId()
    try {
      onError(error, { ...context, errorId: id, ...telemetry?.current?.() })
    } catch {
      // An onError that throws must not turn one failure into two.
    }
    return id
  }
}
