import { HEADER_METHOD, HEADER_NAME, HEADER_PARAM_PREFIX } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import { decodeHeaderValue, headerMatches, type ParamHeader } from '../protocol/headers.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'

// The header rules of SEP-2243: `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` repeat the body. Header names
// are case-insensitive, values case-sensitive and trimmed; a failure is -32020 (seed draft: -32001).

/** Reads a request header (null when absent): the transport itself, its `header` called as a method. */
export type HeaderSource = { header(name: string): string | null }

const mismatch = (profile: Profile, message: string) => new McpError(profile.headerMismatchCode, `Header mismatch: ${message}`)
const differs = (profile: Profile, header: string, got: string, want: string) =>
  mismatch(profile, `${header} header value '${got}' does not match body value ${want}`)
const invalid = (profile: Profile, header: string) => mismatch(profile, `${header} header value is not valid (visible ASCII or =?base64?...?=)`)

/** `Mcp-Method`, and `Mcp-Name` where the method names something (`nameParam`). */
export function checkMethodHeaders(request: HeaderSource, method: string, params: JsonObject, nameParam: string | undefined, profile: Profile): void {
  const methodHeader = request.header(HEADER_METHOD)
  if (methodHeader === null) throw mismatch(profile, 'the required Mcp-Method header is missing')
  if (methodHeader.trim() !== method) throw differs(profile, 'Mcp-Method', methodHeader.trim(), `'${method}'`)

  const bodyName = nameParam === undefined ? undefined : params[nameParam]
  if (typeof bodyName !== 'string') return
  const raw = request.header(HEADER_NAME)
  if (raw === null) throw mismatch(profile, `the Mcp-Name header is required for ${method}`)
  const value = decodeHeaderValue(raw)
  if (value === undefined) throw invalid(profile, 'Mcp-Name')
  if (value !== bodyName) throw differs(profile, 'Mcp-Name', value, `'${bodyName}'`)
}

/** `Mcp-Param-*`: every annotated argument that is set must be repeated, and none that is not. */
export function checkParamHeaders(request: HeaderSource, params: readonly ParamHeader[], args: JsonObject, profile: Profile): void {
  for (const param of params) {
    const name = `Mcp-Param-${param.name}`
    let value: unknown = args
    for (const key of param.path) value = isObject(value) ? value[key] : undefined
    const raw = request.header(`${HEADER_PARAM_PREFIX}${param.name}`)
    if (value === undefined || value === null) {
      if (raw !== null) throw mismatch(profile, `${name} is present but argument ${param.path.join('.')} is not`)
      continue
    }
    if (raw === null) throw mismatch(profile, `the ${name} header is required when argument ${param.path.join('.')} is set`)
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) throw invalid(profile, name)
    if (!headerMatches(decoded, value, param.type)) throw differs(profile, name, decoded, JSON.stringify(value))
  }
}
