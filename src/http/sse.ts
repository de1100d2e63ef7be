/** A server-sent-events response body that JSON-RPC messages are written to as they happen. */
export interface SseStream {
  readonly body: ReadableStream<Uint8Array>
  /** False once the stream is closed or the client went away; nothing is written then. */
  readonly open: boolean
  write(message: unknown): boolean
  close(): void
}

const encoder = new TextEncoder()
const PING = encoder.encode(': keep-alive\n\n')

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to; SSE must flow as written.
  'x-accel-buffering': 'no',
  'content-encoding': 'identity',
}

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

/** `onGone` runs once when the client goes away: the body was cancelled or a write failed. */
export function sseStream(keepAlives: KeepAlive, onGone: () => void): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  const stop = () => {
    open = false
    untrack()
  }
  const gone = () => {
    if (!open) return
    stop()
    onGone()
  }
  const enqueue = (bytes: Uint8Array): boolean => {
    if (!open) return false
    try {
      controller.enqueue(bytes)
      return true
    } catch {
      gone()
      return false
    }
  }
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    cancel: gone,
  })
  const untrack = keepAlives.add(() => enqueue(PING))

  return {
    body,
    get open() {
      return open
    },
    write(message) {
      return enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`))
    },
    close() {
      if (!open) return
      stop()
      try {
        controller.close()
      } catch {
        // already cancelled by the client
      }
    },
  }
}
