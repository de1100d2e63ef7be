export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
/**
 * Bytes of request bodies a handler holds at once, from the first byte read until the request is answered
 * (or its stream begins). Parsed JSON takes up to 25 times its text in heap (4 MB of `[{},{},…]` is ~100 MB),
 * so this bounds what concurrent large bodies can cost: four bodies of the largest size, or thousands of
 * ordinary ones.
 */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024

/**
 * A body refused before it is parsed: larger than the limit (413), not UTF-8 as JSON text must be (400), or
 * more than the handler will hold at once (503, come back shortly).
 */
export class BodyRefused extends Error {
  constructor(readonly status: 400 | 413 | 503, message: string) {
    super(message)
  }
}

const tooLarge = (limit: number) => new BodyRefused(413, `Request body exceeds ${limit} bytes`)

/** The bytes of bodies being read or handled, against a cap shared by every request of a handler. */
export class BodyBudget {
  #held = 0
  constructor(readonly max: number) {}

  /** Takes `bytes` for one request (`taken` counts what it holds), or refuses with 503 when they do not fit. */
  take(bytes: number, taken: { bytes: number }): void {
    if (this.#held + bytes > this.max) throw new BodyRefused(503, 'The server is reading as many request bodies as it holds at once: try again shortly')
    this.#held += bytes
    taken.bytes += bytes
  }

  give(taken: { bytes: number }): void {
    this.#held -= taken.bytes
    taken.bytes = 0
  }
}

// ignoreBOM false: a leading BOM is dropped, as RFC 8259 lets a parser do.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Reads a body as UTF-8 without ever holding much more than `limit` bytes of it, taking what it reads from
 * `budget` into `taken` (given back by the caller once the request is answered). A declared Content-Length
 * above the limit is refused at once; one within it takes the runtimes' fast path (arrayBuffer: one
 * chunk, no reader) and the bytes are counted after all the same, since a Request built by an adapter may
 * carry any header. Without one (chunked), bytes are counted as they arrive.
 */
export async function readBody(request: Request, limit: number, budget?: BodyBudget, taken = { bytes: 0 }): Promise<string> {
  const length = request.headers.get('content-length')
  const declared = length === null ? NaN : Number(length)
  if (declared > limit) throw tooLarge(limit)
  if (Number.isSafeInteger(declared) && declared >= 0) {
    budget?.take(declared, taken)
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > limit) throw tooLarge(limit)
    if (bytes.byteLength > declared) budget?.take(bytes.byteLength - declared, taken)
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
    try {
      if (size > limit) throw tooLarge(limit)
      budget?.take(value.byteLength, taken)
    } catch (e) {
      await reader.cancel().catch(() => {})
      throw e
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
    throw new BodyRefused(400, 'Parse error: the body is not valid UTF-8')
  }
}
