/** A server-sent-events response body that JSON-RPC messages are written to as they happen. */
export interface SseStream {
  readonly body: ReadableStream<Uint8Array>
  /** False once the stream is closed or the client went away; nothing is written then. */
  readonly open: boolean
  write(message: unknown): boolean
  close(): void
}

const encoder = new TextEncoder()
const KEEP_ALIVE = encoder.encode(': keep-alive\n\n')

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // nginx and similar proxies buffer responses unless told not to; SSE must flow as written.
  'x-accel-buffering': 'no',
  'content-encoding': 'identity',
}

/**
 * `onCancel` runs once when the client goes away (the body is cancelled). Keep-alive comments keep idle
 * intermediaries from cutting the stream and reveal a vanished client on the next write.
 */
export function sseStream(keepAliveMs: number, onCancel: () => void): SseStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  let timer: ReturnType<typeof setInterval> | undefined

  const stop = () => {
    open = false
    if (timer !== undefined) clearInterval(timer)
  }
  const enqueue = (bytes: Uint8Array): boolean => {
    if (!open) return false
    try {
      controller.enqueue(bytes)
      return true
    } catch {
      stop()
      onCancel()
      return false
    }
  }

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    cancel() {
      if (!open) return
      stop()
      onCancel()
    },
  })
  if (keepAliveMs > 0) timer = setInterval(() => enqueue(KEEP_ALIVE), keepAliveMs)

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
