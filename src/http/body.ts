export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
/**
 * Bytes of request bodies a handler holds at once, from each byte's arrival until the request is answered
 * (or its stream begins). Parsed JSON takes up to 25 times its text in heap (4 MB of `[{},{},…]` is ~100 MB),
 * so this bounds what concurrent large bodies can cost: four bodies of the largest size, or thousands of
 * ordinary ones.
 */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024
/**
 * How long a body may take to arrive, from the handler's first read to its last byte: a 4 MB body needs
 * 400 KB/s. A client that trickles its body holds a connection and what it sent so far; past this it is let go.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000

/**
 * A body refused before it is parsed: larger than the limit (413), not UTF-8 as JSON text must be (400),
 * too slow to arrive (408), more than its client may hold at once (429), or more than the handler holds
 * at once (503, come back shortly).
 */
export class BodyRefused extends Error {
  constructor(readonly status: 400 | 408 | 413 | 429 | 503, message: string) {
    super(message)
  }
}

const tooLarge = (limit: number) => new BodyRefused(413, `Request body exceeds ${limit} bytes`)

/** One request's hold on a BodyBudget: the bytes it has read, and whose share they count against. */
export class BodyHold {
  bytes = 0
  /** The client (src/exchange/client-share.ts), or undefined where only the total applies. */
  constructor(readonly client: string | undefined) {}
}

/**
 * The bytes of bodies being read or handled, against a cap shared by every request of a handler and a
 * share of it for each client: one client sending many bodies at once (or slowly) cannot take all of it.
 */
export class BodyBudget {
  #held = 0
  readonly #clients = new Map<string, number>()
  constructor(readonly max: number, readonly perClient: number) {}

  /** Takes `bytes` for one request, or refuses: 429 over its client's share, 503 over the total. */
  take(bytes: number, hold: BodyHold): void {
    const { client } = hold
    const theirs = client === undefined ? 0 : (this.#clients.get(client) ?? 0)
    if (theirs + bytes > this.perClient) throw new BodyRefused(429, 'This client is sending as many request bodies as it may at once: try again once its other requests are answered')
    if (this.#held + bytes > this.max) throw new BodyRefused(503, 'The server is reading as many request bodies as it holds at once: try again shortly')
    this.#held += bytes
    if (client !== undefined) this.#clients.set(client, theirs + bytes)
    hold.bytes += bytes
  }

  give(hold: BodyHold): void {
    const { bytes, client } = hold
    if (bytes === 0) return
    this.#held -= bytes
    hold.bytes = 0
    if (client === undefined) return
    const left = this.#clients.get(client)! - bytes
    if (left > 0) this.#clients.set(client, left)
    else this.#clients.delete(client)
  }

  /** Bytes held now, in all and by clients: what a test or a gauge reads. */
  get held(): { readonly bytes: number; readonly clients: number } {
    return { bytes: this.#held, clients: this.#clients.size }
  }
}

/**
 * Where a body's bytes come from: `request.body`'s reader, or what the runtime reads cheaper itself
 * (RuntimeContext.body). `cancel` ends a pending read as done and leaves the connection to the answer.
 */
export interface BodySource {
  /** The whole body, when all of it has arrived already (as a small one usually has, with the headers). */
  whole?(): Promise<Uint8Array | undefined>
  read(): Promise<ReadableStreamReadResult<Uint8Array>>
  cancel(): Promise<void>
}

export interface BodyLimits {
  /** Largest body, in bytes. */
  readonly maxBytes: number
  /** Time from the first read to the last byte, in ms. */
  readonly timeoutMs?: number | undefined
}

// ignoreBOM false: a leading BOM is dropped, as RFC 8259 lets a parser do.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Reads a body as UTF-8 without ever holding much more than `limits.maxBytes` of it, taking each chunk from
 * `budget` into `hold` as it arrives (given back by the caller once the request is answered): a declared
 * Content-Length reserves nothing, so a client that declares a large body and sends it slowly holds only
 * what it sent. A declared length above the limit is refused at once; a body still arriving after
 * `limits.timeoutMs` is refused with 408.
 */
export async function readBody(request: Request, limits: BodyLimits, budget?: BodyBudget, hold = new BodyHold(undefined), source?: BodySource): Promise<string> {
  const { maxBytes } = limits
  const length = request.headers.get('content-length')
  if (length !== null && Number(length) > maxBytes) throw tooLarge(maxBytes)
  const whole = await source?.whole?.()
  if (whole) {
    if (whole.byteLength > maxBytes) throw tooLarge(maxBytes)
    budget?.take(whole.byteLength, hold)
    return decode(whole)
  }
  const reader = source ?? request.body?.getReader()
  if (!reader) return ''
  const timeoutMs = limits.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS
  // Cancelling ends the pending read (done), so no read races a timer promise: the flag says why it ended.
  let late = false
  const timer = setTimeout(() => {
    late = true
    void reader.cancel().catch(() => {})
  }, timeoutMs)
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (late) throw new BodyRefused(408, `Request body not received within ${timeoutMs} ms`)
      if (done) break
      size += value.byteLength
      if (size > maxBytes) throw tooLarge(maxBytes)
      budget?.take(value.byteLength, hold)
      chunks.push(value)
    }
  } catch (e) {
    if (!late) await reader.cancel().catch(() => {})
    throw e
  } finally {
    clearTimeout(timer)
  }
  return decode(chunks.length === 1 ? chunks[0]! : concat(chunks, size))
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.byteLength
  }
  return bytes
}

function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new BodyRefused(400, 'Parse error: the body is not valid UTF-8')
  }
}
