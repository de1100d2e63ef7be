// Writing a Response to the response stream of a streaming Lambda function, by the runtime's rules: the
// prelude (status, headers, cookies) goes out with the first write, which is made even for an empty body;
// the body is pumped by hand with backpressure (never pipeline(), never destroy(): either can crash the
// runtime process, and the next request would pay a cold start); end() is reached on every path.

/** The response stream a streaming handler is given (the runtime's; a Writable plus setContentType). */
export interface ResponseStream {
  write(chunk: string | Uint8Array): boolean
  end(): unknown
  once(event: string, listener: () => void): unknown
  off(event: string, listener: () => void): unknown
  readonly destroyed?: boolean | undefined
  readonly writableEnded?: boolean | undefined
  cork?(): void
  uncork?(): void
  setContentType?(type: string): void
}

/** The `awslambda` global the runtime defines before it loads the handler module. */
interface AwsLambdaGlobal {
  streamifyResponse<F extends Function>(handler: F): F
  HttpResponseStream: { from(stream: ResponseStream, prelude: object): ResponseStream }
}

export const awslambda = (): AwsLambdaGlobal | undefined => (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda

/** The marker the runtime reads to call a handler with a response stream (kept by any wrapper that copies it). */
export const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming')

const PRELUDE_TYPE = 'application/vnd.awslambda.http-integration-response'

/**
 * The stream with its prelude attached. The runtime's own `HttpResponseStream.from` where it exists; the
 * same bytes (JSON, then 8 NULs) written here where it does not (a runtime that defines no global).
 */
function withPrelude(stream: ResponseStream, prelude: object): ResponseStream {
  const lambda = awslambda()
  if (lambda) return lambda.HttpResponseStream.from(stream, prelude)
  stream.setContentType?.(PRELUDE_TYPE)
  stream.write(JSON.stringify(prelude))
  stream.write(new Uint8Array(8))
  return stream
}

/**
 * After a chunk, how long the next may take before padding is written: Lambda holds small writes back
 * (reports put the threshold between 16 and 100 KB), so a progress notification or keep-alive would sit
 * there until the next one. Chunks closer together than this go out together.
 */
const PAUSE_MS = 10

export interface SendOptions {
  /**
   * Bytes Lambda holds back before it passes a stream on: after a pause, an SSE comment (which every client
   * skips) tops up what was written since the last flush to this many. 0 for none.
   */
  readonly flushBytes: number
  /** Aborted when the invocation must end: what is unwritten is dropped and the stream ends. */
  readonly stop: AbortSignal
}

/**
 * Writes status, headers and body; resolves once end() was called, which happens on every path. Rejects
 * only with what failed (the body stream, the prelude), after end().
 */
export async function send(stream: ResponseStream, prelude: () => object, body: ReadableStream<Uint8Array> | null, options: SendOptions): Promise<void> {
  try {
    const out = withPrelude(stream, prelude())
    // The runtime sends the prelude with the first write, in the same segment as the body's first bytes
    // (write() corks); a response without any still needs that write.
    const wrote = body ? await pump(body.getReader(), out, options) : false
    if (!wrote && !out.writableEnded) out.write('')
  } finally {
    if (!stream.writableEnded) stream.end()
  }
}

const encoder = new TextEncoder()
const padding = (bytes: number) => encoder.encode(`:${' '.repeat(Math.max(0, bytes - 3))}\n\n`)

/**
 * Pumps the body into the stream; resolves to whether anything was written. Without padding each chunk goes
 * out as it comes. With it, chunks that come close together go out together, topped up with padding once a
 * pause shows the burst is over, and in one write: the runtime's connection does not disable Nagle's
 * algorithm, so a second small write would wait for the first one's delayed ACK (40 ms on Linux) before
 * Lambda saw it.
 */
async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, out: ResponseStream, { flushBytes, stop }: SendOptions): Promise<boolean> {
  const cancel = () => void reader.cancel(stop.reason).catch(() => {})
  if (stop.aborted) cancel()
  stop.addEventListener('abort', cancel, { once: true })
  // A body that fails while the stream is full (its client too slow, src/http/sse.ts) ends the wait too.
  const failed = new AbortController()
  reader.closed.catch((e: unknown) => failed.abort(e))
  const halt = AbortSignal.any([stop, failed.signal])
  const batch: Uint8Array[] = []
  let batched = 0
  let wrote = false
  let next = reader.read()
  const flush = async (chunks: Uint8Array[]) => {
    wrote = true
    if (await write(out, chunks, halt)) return true
    cancel()
    if (!failed.signal.aborted) return false
    // Thrown as a read throws it: the read under way may have taken a chunk before the body failed.
    next.catch(() => {})
    throw failed.signal.reason
  }
  try {
    for (;;) {
      const { done, value } = await next
      if (done) {
        if (batched) await flush(batch)
        return wrote
      }
      next = reader.read()
      if (flushBytes <= 0) {
        if (!(await flush([value]))) return wrote
        continue
      }
      batch.push(value)
      batched += value.byteLength
      if (batched < flushBytes && (await within(next, PAUSE_MS))) continue
      if (batched < flushBytes) batch.push(padding(flushBytes - batched))
      batched = 0
      if (!(await flush(batch.splice(0)))) return wrote
    }
  } finally {
    stop.removeEventListener('abort', cancel)
  }
}

const GONE = ['drain', 'close', 'error'] as const

/**
 * Writes chunks as one (corked: the prelude the runtime adds before a first write goes in the same
 * segment), waiting for the stream to drain when it asks; false once the stream is gone or time is up.
 */
async function write(out: ResponseStream, chunks: Uint8Array[], stop: AbortSignal): Promise<boolean> {
  if (out.destroyed || out.writableEnded || stop.aborted) return false
  out.cork?.()
  let ok = true
  for (const chunk of chunks) ok = out.write(chunk)
  out.uncork?.()
  if (ok) return true
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of GONE) out.off(event, done)
      stop.removeEventListener('abort', done)
      resolve()
    }
    for (const event of GONE) out.once(event, done)
    stop.addEventListener('abort', done, { once: true })
  })
  return !out.destroyed && !stop.aborted
}

/** Whether a promise settles within `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    const settled = () => {
      clearTimeout(timer)
      resolve(true)
    }
    promise.then(settled, settled)
  })
}
