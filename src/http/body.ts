import { ERROR } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

const tooLarge = (limit: number) => new McpError(ERROR.INVALID_REQUEST, `Request body exceeds ${limit} bytes`, undefined, 413)

/** Reads a body as UTF-8 without ever holding more than `limit` bytes of it. */
export function readBody(request: Request, limit: number): Promise<string> {
  const length = request.headers.get('content-length')
  const declared = length === null ? NaN : Number(length)
  if (declared > limit) return Promise.reject(tooLarge(limit))
  // HTTP servers deliver exactly Content-Length bytes, so a declared length within the limit needs no
  // counting, and text() is the runtimes' fast path (handed on as is: no extra promise on the hot path).
  // Without one (chunked), count as the bytes come.
  if (Number.isSafeInteger(declared) && declared >= 0) return request.text()
  return readCounting(request, limit)
}

async function readCounting(request: Request, limit: number): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.byteLength
  }
  return new TextDecoder().decode(bytes)
}
