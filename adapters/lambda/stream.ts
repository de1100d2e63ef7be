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
 * there until the next one. Padding is an SSE comment, which every client skips.
 */
const PAUSE_MS = 5

export interface SendOptions {
  /** SSE comment bytes written after a pause so that what precedes it is passed on; absent for no padding. */
  readonly padding: Uint8Array | undefined
  /** Aborted when the invocation must end: what is unwritten is dropped and the stream ends. */
  readonly stop: AbortSignal
}

/** Writes status, headers and body; resolves once end() was called. Rejects only with a body stream's error, after end(). */
export async function send(stream: ResponseStream, prelude: object, body: ReadableStream<Uint8Array> | null, options: SendOptions): Promise<void> {
  const out = withPrelude(stream, prelude)
  try {
    // The prelude goes out with the first write, so an empty body still needs one.
    out.write('')
    if (body) await pump(body.getReader(), out, options)
  } finally {
    if (!out.writableEnded) out.end()
  }
}

async function pump(reader: ReadableStreamDefaultReader<Uint8Array>, out: ResponseStream, { padding, stop }: SendOptions): Promise<void> {
  const cancel = () => void reader.cancel(stop.reason).catch(() => {})
  if (stop.aborted) cancel()
  stop.addEventListener('abort', cancel, { once: true })
  try {
    let next = reader.read()
    for (;;) {
      const { done, value } = await next
      if (done) return
      if (!(await write(out, value))) return cancel()
      next = reader.read()
      if (padding && !(await within(next, PAUSE_MS)) && !(await write(out, padding))) return cancel()
    }
  } finally {
    stop.removeEventListener('abort', cancel)
  }
}

/** Writes one chunk, waiting for the stream to drain when it asks; false once the stream is gone. */
async function write(out: ResponseStream, chunk: Uint8Array): Promise<boolean> {
  if (out.destroyed || out.writableEnded) return false
  if (out.write(chunk)) return true
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) out.off(event, done)
      resolve()
    }
    for (const event of ['drain', 'close', 'error']) out.once(event, done)
  })
  return !out.destroyed
}

/** Whether a promise settles within `ms`. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    promise.then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(true)),
    )
  })
}
