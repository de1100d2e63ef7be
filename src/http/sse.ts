/** A server-sent-events response that JSON-RPC messages are written to as they happen. */
export interface SseStream {
  /**
   * Nothing is written once the stream is closed or the client went away. `id` is the SSE event id, which a
   * client reconnecting sends back as Last-Event-ID (resumable requests number their messages so).
   */
  write(message: unknown, id?: string): void
  close(): void
}

const encoder = new TextEncoder()
const PING = ': keep-alive\n\n'

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  // no-transform: intermediaries must not compress or otherwise hold the stream back.
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to; SSE must flow as written.
  'x-accel-buffering': 'no',
}

/** Queued bytes beyond which a client that does not read is let go rather than buffered for without end. */
export const MAX_BACKLOG = 1024 * 1024
/** What the body queues before it counts as backlog. */
export const HIGH_WATER_MARK = 64 * 1024

/**
 * One timer for all open streams of a handler: keep-alive comments stop idle intermediaries from cutting a
 * stream and reveal a vanished client on the next write. It runs only while streams are open.
 */
export interface KeepAlive {
  add(ping: () => void): () => void
}

export function keepAlive(intervalMs: number): KeepAlive {
  const pings = new Set<() => void>()
  let timer: ReturnType<typeof setInterval> | undefined
  return {
    add(ping) {
      if (intervalMs <= 0) return () => {}
      pings.add(ping)
      timer ??= setInterval(() => {
        for (const p of pings) p()
      }, intervalMs)
      return () => {
        pings.delete(ping)
        if (pings.size === 0 && timer !== undefined) {
          clearInterval(timer)
          timer = undefined
        }
      }
    },
  }
}

/**
 * Where a stream's text goes: a Response body, or the connection itself where the runtime writes responses
 * (the Node adapter's ServerResponse), which spares each open stream a ReadableStream and its reader.
 */
export interface SseSink {
  /** Sends `text` on; returns the bytes now queued that the client has not taken. */
  write(text: string): number
  end(): void
  /** Drops the connection at once: the client stopped reading. */
  destroy(): void
}

/**
 * Opens a stream on the connection itself: status 200 with `headers` go out, and `onClose` runs once if the
 * connection closes before the sink ends or destroys it. `response` is what the fetch handler returns for
 * it; the runtime knows not to send it.
 */
export type DirectSse = (headers: Record<string, string>, onClose: () => void) => { sink: SseSink; response: Response }

/**
 * `onGone` runs once when the client goes away: it cancelled the body, or stopped reading for so long that
 * more than MAX_BACKLOG bytes wait for it. Every way the stream ends goes through `stop` first, so an open
 * stream's controller always takes bytes.
 */
export function sseStream(keepAlives: KeepAlive, onGone: () => void): SseStream & { readonly body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const sink: SseSink = {
    write(text) {
      controller.enqueue(encoder.encode(text))
      return HIGH_WATER_MARK - (controller.desiredSize ?? 0)
    },
    end: () => controller.close(),
    destroy: () => controller.error(new Error('client too slow')),
  }
  const body = new ReadableStream<Uint8Array>(
    // The body's cancel callback runs once, and never after the backlog has errored the body.
    { start: (c) => void (controller = c), cancel: () => stream.gone() },
    { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  )
  const stream = new SseWriter(keepAlives, sink, onGone)
  return Object.assign(stream, { body })
}

/** A stream on the connection itself (see DirectSse); the Response to return is `response`. */
export function directSseStream(keepAlives: KeepAlive, open: DirectSse, headers: Record<string, string>, onGone: () => void): SseStream & { readonly response: Response } {
  let stream: SseWriter | undefined
  const { sink, response } = open(headers, () => stream?.gone())
  stream = new SseWriter(keepAlives, sink, onGone)
  return Object.assign(stream, { response })
}

/**
 * JSON-RPC messages as SSE events on a sink, with keep-alives, and a client that stops reading let go.
 * A class rather than closures: one object for each open stream instead of six functions and their scope.
 */
class SseWriter implements SseStream {
  #open = true
  readonly #untrack: () => void

  constructor(keepAlives: KeepAlive, private readonly sink: SseSink, private readonly onGone: () => void) {
    this.#untrack = keepAlives.add(() => this.#send(PING))
  }

  write(message: unknown, id?: string): void {
    this.#send(`${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`)
  }

  close(): void {
    if (!this.#stop()) return
    this.sink.end()
  }

  /** The client went away: nothing more is written, `onGone` runs (once at most). */
  gone(): void {
    if (this.#stop()) this.onGone()
  }

  #send(text: string): void {
    if (!this.#open) return
    if (this.sink.write(text) - HIGH_WATER_MARK > MAX_BACKLOG) {
      // The client stopped reading: end the stream; it can reconnect and refetch.
      this.gone()
      this.sink.destroy()
    }
  }

  /** False when the stream had stopped already. */
  #stop(): boolean {
    if (!this.#open) return false
    this.#open = false
    this.#untrack()
    return true
  }
}
