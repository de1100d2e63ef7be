import { bytesToBase64 } from '../protocol/base64.js'
import { internalError } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { CallToolResult, CompleteResult, GetPromptResult, ResourceContents } from '../protocol/types.js'
import type { PromptReturn, ResourceReturn, ToolReturn } from '../server/definitions.js'

/** Turns what a tool handler returned into a CallToolResult. */
export function toolResult(value: ToolReturn): CallToolResult {
  if (value === undefined || value === null) return { content: [] }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] }
  if (Array.isArray(value)) return { content: value }
  if (Array.isArray(value.content) || 'structuredContent' in value || 'isError' in value) {
    // A copy: results are decorated on their way out, and the handler may hand back a shared object.
    const result = value as unknown as CallToolResult
    return Array.isArray(result.content) ? { ...result } : { ...result, content: textMirror(result.structuredContent) }
  }
  // A plain object is the structured result; a text copy keeps clients that ignore structuredContent informed.
  return { content: textMirror(value), structuredContent: value }
}

const textMirror = (value: unknown) => (value === undefined ? [] : [{ type: 'text' as const, text: JSON.stringify(value) }])

export const toolError = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true })

export function promptResult(value: PromptReturn): GetPromptResult {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] }
  if (Array.isArray(value)) return { messages: value }
  if (isObject(value) && Array.isArray(value.messages)) return { ...value }
  throw internalError('The prompt handler returned neither text, messages nor a GetPromptResult')
}

/** Turns what a resource handler returned into contents; `undefined` means the resource does not exist. */
export function resourceContents(value: ResourceReturn | undefined | null, uri: string, mimeType?: string): ResourceContents[] | undefined {
  if (value === undefined || value === null) return undefined
  const withType = (c: JsonObject) => (mimeType === undefined ? c : { ...c, mimeType })
  if (typeof value === 'string') return [withType({ uri, text: value }) as unknown as ResourceContents]
  if (value instanceof Uint8Array) return [withType({ uri, blob: bytesToBase64(value) }) as unknown as ResourceContents]
  if (Array.isArray(value)) return value
  if ('contents' in value && Array.isArray(value.contents)) return value.contents
  if ('uri' in value && ('text' in value || 'blob' in value)) return [value as ResourceContents]
  throw internalError('The resource handler returned neither text, bytes nor resource contents')
}

const MAX_COMPLETIONS = 100

export function completion(value: string[] | CompleteResult['completion']): CompleteResult['completion'] {
  if (!Array.isArray(value)) return { ...value, values: value.values.slice(0, MAX_COMPLETIONS) }
  const out: CompleteResult['completion'] = { values: value.slice(0, MAX_COMPLETIONS) }
  if (value.length > MAX_COMPLETIONS) Object.assign(out, { total: value.length, hasMore: true })
  return out
}
