/** A server-sent-events response body that JSON-RPC messages are written to as they happen. */
export interface SseStream {
  readonly body: ReadableStream<Uint8Array>
  /** Nothing is written once the stream is closed or the client went away. */
  write(message: unknown): void
  close(): void
}

const encoder = new TextEncoder()
const PING = encoder.encode(': keep-alive\n\n')

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
 * `onGone` runs once when the client goes away: it cancelled the body, or stopped reading for so long that
 * more than MAX_BACKLOG bytes wait for it. Every way the stream ends goes through `stop` first, so an open
 * stream's controller always takes bytes.
 */
export function sseStream(keepAlives: KeepAlive, onGone: () => void): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  const stop = () => {
    open = false
    untrack()
  }
  // Once at most: the body's cancel callback runs once, and never after the backlog has errored the body.
  const gone = () => {
    stop()
    onGone()
  }
  const enqueue = (bytes: Uint8Array) => {
    if (!open) return
    controller.enqueue(bytes)
    if ((controller.desiredSize ?? 0) < -MAX_BACKLOG) {
      // The client stopped reading: end the stream; it can reconnect and refetch.
      gone()
      controller.error(new Error('client too slow'))
    }
  }
  const body = new ReadableStream<Uint8Array>(
    { start: (c) => void (controller = c), cancel: gone },
    { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  )
  const untrack = keepAlives.add(() => enqueue(PING))

  return {
    body,
    write: (message) => enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)),
    close() {
      if (!open) return
      stop()
      controller.close()
    },
  }
}
