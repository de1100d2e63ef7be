import { META_PROTOCOL_VERSION } from '../protocol/constants.js'
import { isObject, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import { ALL_VERSIONS } from '../protocol/profiles.js'
import type { RequestNames, Runtime, Transport } from './types.js'

/** What OpenTelemetry's conventions put where a value is not one of a known set (`http.request.method`'s `_OTHER`). */
export const OTHER = '_OTHER'

/**
 * What a request names, in words the server knows: a method it has, a tool or prompt it registered, a
 * version of the protocol (served or not), and `_OTHER` for anything else. Telemetry labels metrics and names spans with these
 * only, so that made-up names cannot grow the metric series (each kept for the process's life).
 */
export function requestNames(runtime: Runtime, message: JsonRpcRequest, transport: Transport): RequestNames {
  const { method, params } = message
  const known = runtime.method('modern', method) ?? runtime.method('legacy', method)
  const names: { -readonly [K in keyof RequestNames]: RequestNames[K] } = { method: known ? method : OTHER }
  const kind = method === 'tools/call' ? 'tool' : method === 'prompts/get' ? 'prompt' : undefined
  const name = params?.name
  if (kind && typeof name === 'string') names.target = runtime.server.registered(kind, name) ? name : OTHER
  const meta = isObject(params?._meta) ? params._meta : undefined
  const version = meta?.[META_PROTOCOL_VERSION] ?? transport.versionHeader
  if (typeof version === 'string') names.version = ALL_VERSIONS.includes(version) ? version : OTHER
  return names
}
