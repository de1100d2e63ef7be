import { base64ToBytes, bytesToBase64 } from './base64.js'
import { isObject, type JsonObject } from './jsonrpc.js'

/**
 * Header encodings of SEP-2243: Mcp-Name and Mcp-Param-* values that are not plain visible ASCII travel as
 * `=?base64?<base64 of UTF-8>?=` (DIGEST §6.3-§6.4).
 */
const SENTINEL = /^=\?base64\?(.*)\?=$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const PLAIN = /^[\x20-\x7e]*$/
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Decodes a header value; `undefined` when it is malformed (characters outside visible ASCII, or a sentinel
 * whose payload is not canonical base64 of UTF-8). A value that only starts like the sentinel is a literal.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim()
  if (!PLAIN.test(value)) return undefined
  const match = SENTINEL.exec(value)
  if (!match) return value
  const b64 = match[1]!
  if (!BASE64.test(b64)) return undefined
  try {
    return utf8.decode(base64ToBytes(b64))
  } catch {
    return undefined
  }
}

/** Encodes a value as a client would (used by tests and by clients built on this package). */
export function encodeHeaderValue(value: string): string {
  const needsBase64 = !PLAIN.test(value) || value !== value.trim() || SENTINEL.test(value)
  if (!needsBase64) return value
  return `=?base64?${bytesToBase64(new TextEncoder().encode(value))}?=`
}

export interface ParamHeader {
  /** The name after `Mcp-Param-`, as the schema spells it. */
  name: string
  /** Property names from the input root down to the annotated property. */
  path: string[]
  type: 'string' | 'integer' | 'boolean'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const SUBSCHEMA_MAPS = ['$defs', 'definitions', 'patternProperties', 'dependentSchemas']
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'additionalItems']

/**
 * Finds the `x-mcp-header` annotations of a tool's input schema and checks them against the rules of the
 * 2026-07-28 revision; throws with a message naming the offending property. Clients drop tools that break
 * these rules, so a server must refuse them when they are defined, not when a client silently hides them.
 */
export function paramHeaders(schema: JsonObject, where = 'inputSchema'): ParamHeader[] {
  const found: ParamHeader[] = []
  const seen = new Map<string, string>()

  const visit = (node: unknown, path: string[], reachable: boolean, at: string): void => {
    if (!isObject(node)) return
    if ('x-mcp-header' in node) {
      const name = node['x-mcp-header']
      const fail = (why: string) => { throw new Error(`x-mcp-header at ${where}${at}: ${why}`) }
      if (typeof name !== 'string' || name === '') fail('must be a non-empty string')
      const header = name as string
      if (!TOKEN.test(header)) fail(`"${header}" is not an HTTP token (RFC 9110 tchar only)`)
      if (!reachable || path.length === 0) fail('only properties reached through a chain of "properties" may carry it')
      const type = node.type
      if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
        fail(`the property must have type "string", "integer" or "boolean" (got ${JSON.stringify(type)})`)
      }
      const key = header.toLowerCase()
      if (seen.has(key)) fail(`"${header}" is already used by ${seen.get(key)}`)
      seen.set(key, at)
      found.push({ name: header, path, type: type as ParamHeader['type'] })
    }
    if (isObject(node.properties)) {
      for (const [key, sub] of Object.entries(node.properties)) visit(sub, [...path, key], reachable, `${at}.properties.${key}`)
    }
    for (const k of SUBSCHEMA_MAPS) {
      if (isObject(node[k])) for (const [key, sub] of Object.entries(node[k])) visit(sub, path, false, `${at}.${k}.${key}`)
    }
    for (const k of SUBSCHEMA_LISTS) {
      const list = node[k]
      if (Array.isArray(list)) list.forEach((sub, i) => visit(sub, path, false, `${at}.${k}[${i}]`))
    }
    for (const k of SUBSCHEMAS) {
      const sub = node[k]
      if (Array.isArray(sub)) sub.forEach((s, i) => visit(s, path, false, `${at}.${k}[${i}]`))
      else visit(sub, path, false, `${at}.${k}`)
    }
  }
  visit(schema, [], true, '')
  return found
}

/** Whether a decoded header value stands for the body value (numbers compare numerically). */
export function headerMatches(header: string, value: unknown, type: ParamHeader['type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && header === value
    case 'boolean':
      return typeof value === 'boolean' && header === String(value)
    case 'integer':
      // Decimal only ("42", "-7", "42.0"): Number() would also take "0x2A" or "4.2e1".
      return typeof value === 'number' && /^-?\d+(\.0+)?$/.test(header) && Number(header) === value
  }
}
