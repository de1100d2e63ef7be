export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/** A body refused before it is parsed: larger than the limit (413), or not UTF-8, as JSON text must be (400). */
export class BodyRefused extends Error {
  constructor(readonly tooLarge: boolean, message: string) {
    super(message)
  }
}

const tooLarge = (limit: number) => new BodyRefused(true, `Request body exceeds ${limit} bytes`)

// ignoreBOM false: a leading BOM is dropped, as RFC 8259 lets a parser do.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Reads a body as UTF-8 without ever holding more than `limit` bytes of it. The bytes are counted as they
 * arrive: a declared Content-Length larger than the limit is refused at once, but a smaller one is not
 * trusted (a Request built by an adapter may carry any header).
 */
export async function readBody(request: Request, limit: number): Promise<string> {
  const length = request.headers.get('content-length')
  if (length !== null && Number(length) > limit) throw tooLarge(limit)
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
  let bytes = chunks[0] ?? new Uint8Array(0)
  if (chunks.length > 1) {
    bytes = new Uint8Array(size)
    let at = 0
    for (const c of chunks) {
      bytes.set(c, at)
      at += c.byteLength
    }
  }
  try {
    return utf8.decode(bytes)
  } catch {
    throw new BodyRefused(false, 'Parse error: the body is not valid UTF-8')
  }
}
