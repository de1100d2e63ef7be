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
 * Reads a body as UTF-8 without ever holding much more than `limit` bytes of it. A declared Content-Length
 * above the limit is refused at once; one within it takes the runtimes' fast path (arrayBuffer: one
 * chunk, no reader) and the bytes are counted after all the same, since a Request built by an adapter may
 * carry any header. Without one (chunked), bytes are counted as they arrive.
 */
export async function readBody(request: Request, limit: number): Promise<string> {
  const length = request.headers.get('content-length')
  const declared = length === null ? NaN : Number(length)
  if (declared > limit) throw tooLarge(limit)
  if (Number.isSafeInteger(declared) && declared >= 0) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > limit) throw tooLarge(limit)
    return decode(bytes)
  }
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
  return decode(bytes)
}

function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new BodyRefused(false, 'Parse error: the body is not valid UTF-8')
  }
}
