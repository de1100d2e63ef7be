import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { ClientCapabilities, ServerCapabilities } from '../protocol/types.js'
import type { Runtime } from './types.js'

/** The members of `required` that `declared` lacks, or undefined when all are there. */
export function missingCapabilities(required: ClientCapabilities, declared: ClientCapabilities): ClientCapabilities | undefined {
  const missing: JsonObject = {}
  for (const [key, value] of Object.entries(required)) {
    const have = declared[key]
    if (!isObject(have)) missing[key] = value
    else if (isObject(value)) {
      const nested = missingCapabilities(value, have)
      if (nested) missing[key] = nested
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined
}

/** A method that exists only where the server has this capability (tools/list needs `tools`). */
export const servedBy = (key: keyof ServerCapabilities) => (runtime: Runtime): boolean => runtime.capabilities()[key] !== undefined
