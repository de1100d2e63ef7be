import { ERROR } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

const tooLarge = (limit: number) => new McpError(ERROR.INVALID_REQUEST, `Request body exceeds ${limit} bytes`, undefined, 413)

/** Reads a body as UTF-8 without ever holding more than `limit` bytes of it (a lying Content-Length included). */
export async function readBody(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > limit) throw tooLarge(limit)
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
