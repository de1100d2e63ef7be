import { HEADER } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import { decodeHeaderValue, headerMatches } from '../protocol/headers.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { McpServer } from '../server/server.js'

/** Where `Mcp-Name` comes from in the body, per method (SEP-2243). */
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' }

/**
 * Checks `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` against the body. Header names are case-insensitive,
 * values are case-sensitive and trimmed; a failure is -32020 (seed draft: -32001) with HTTP 400.
 */
export function checkMcpHeaders(headers: Headers, method: string, params: JsonObject, profile: Profile, server: McpServer): void {
  const mismatch = (message: string) => new McpError(profile.headerMismatchCode, `Header mismatch: ${message}`, undefined, 400)
  const differs = (header: string, got: string, want: string) => mismatch(`${header} header value '${got}' does not match body value ${want}`)
  const invalid = (header: string) => mismatch(`${header} header value is not valid (visible ASCII or =?base64?...?=)`)

  const methodHeader = headers.get(HEADER.method)
  if (methodHeader === null) throw mismatch('the required Mcp-Method header is missing')
  if (methodHeader.trim() !== method) throw differs('Mcp-Method', methodHeader.trim(), `'${method}'`)

  const source = NAME_SOURCE[method]
  const bodyName = source === undefined ? undefined : params[source]
  if (typeof bodyName === 'string') {
    const raw = headers.get(HEADER.name)
    if (raw === null) throw mismatch(`the Mcp-Name header is required for ${method}`)
    const value = decodeHeaderValue(raw)
    if (value === undefined) throw invalid('Mcp-Name')
    if (value !== bodyName) throw differs('Mcp-Name', value, `'${bodyName}'`)
  }

  if (method !== 'tools/call' || typeof bodyName !== 'string') return
  const tool = server.tools.get(bodyName)
  if (!tool?.enabled) return
  const args = isObject(params.arguments) ? params.arguments : {}
  for (const param of tool.params) {
    const name = `Mcp-Param-${param.name}`
    let value: unknown = args
    for (const key of param.path) value = isObject(value) ? value[key] : undefined
    const raw = headers.get(`${HEADER.paramPrefix}${param.name}`)
    if (value === undefined || value === null) {
      if (raw !== null) throw mismatch(`${name} is present but argument ${param.path.join('.')} is not`)
      continue
    }
    if (raw === null) throw mismatch(`the ${name} header is required when argument ${param.path.join('.')} is set`)
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) throw invalid(name)
    if (!headerMatches(decoded, value, param.type)) throw differs(name, decoded, JSON.stringify(value))
  }
}
