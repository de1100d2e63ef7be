import type { Cancellation } from '../exchange/cancellation.js'
import { INTERNAL_ERROR } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import { errorResponse, type JsonRpcId } from '../protocol/jsonrpc.js'
import { corsHeaders } from './security.js'

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

/**
 * Queued bytes beyond which a client that does not read is let go rather than buffered for without end. It is
 * weighed before the messages of each synchronous run, beyond the largest run still waiting (SseWriter#send):
 * a message is never cut for its own size, nor for those written with it.
 */
export const MAX_BACKLOG = 1024 * 1024
/** What the body queues before it counts as backlog. */
export const HIGH_WATER_MARK = 64 * 1024
/**
 * Characters of JSON one message may have on a stream, as many as maxBodyBytes' default has bytes
 * (src/http/body.ts). A larger response goes as an error saying so, a larger notification not at all.
 */
export const MAX_MESSAGE = 4 * 1024 * 1024

/**
 * One timer for all open streams of a handler: keep-alive comments stop idle intermediaries from cutting a
 * stream and reveal a vanished client on the next write. It runs only while streams are open. It holds the
 * streams themselves, not a ping function for each: tens of thousands are open at once.
 */
export interface KeepAlive {
  add(stream: { ping(): void }): void
  delete(stream: { ping(): void }): void
}

export function keepAlive(intervalMs: number): KeepAlive {
  const streams = new Set<{ ping(): void }>()
  let timer: ReturnType<typeof setInterval> | undefined
  return {
    add(stream) {
      if (intervalMs <= 0) return
      streams.add(stream)
      timer ??= setInterval(() => {
        for (const s of streams) s.ping()
      }, intervalMs)
    },
    delete(stream) {
      if (streams.delete(stream) && streams.size === 0) {
        clearInterval(timer!)
        timer = undefined
      }
    },
  }
}

/**
 * Where a stream's text goes: a Response body, or the connection itself where the runtime writes responses
 * (the Node adapter's ServerResponse), which spares each open stream a ReadableStream and its reader.
 */
export interface SseSink {
  write(text: string): void
  /** Bytes written that the client has not taken yet. */
  queued(): number
  end(): void
  /** Drops the connection at once: the client stopped reading. */
  destroy(): void
}

/**
 * Opens a stream on the connection itself: status 200 with `headers` go out, and `stream.gone()` runs when
 * the connection closes (after the sink ended or destroyed it too: the stream ignores that). `response` is
 * what the fetch handler returns for it; the runtime knows not to send it.
 */
export type DirectSse = (headers: Record<string, string>, stream: { gone(): void }) => { sink: SseSink; response: Response }

/** What a stream tells when its client goes away (a request's Cancellation). */
export interface ClientGone {
  abort(reason: unknown): void
}

/**
 * `owner` is aborted once when the client goes away: it cancelled the body, or stopped reading for so long
 * that more than MAX_BACKLOG bytes wait for it (see SseWriter#send). Every way the stream ends goes through
 * `stop` first, so an open stream's controller always takes bytes.
 */
export function sseStream(keepAlives: KeepAlive, owner: ClientGone): SseStream & { readonly body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const sink: SseSink = {
    write: (text) => controller.enqueue(encoder.encode(text)),
    queued: () => HIGH_WATER_MARK - (controller.desiredSize ?? 0),
    end: () => controller.close(),
    destroy: () => controller.error(new Error('client too slow')),
  }
  const body = new ReadableStream<Uint8Array>(
    // The body's cancel callback runs once, and never after the backlog has errored the body.
    { start: (c) => void (controller = c), cancel: () => stream.gone() },
    { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  )
  const stream = new SseWriter(keepAlives, sink, owner)
  return Object.assign(stream, { body })
}

/** A stream on the connection itself (see DirectSse, a method of `platform`); the Response to return is `response`. */
export function directSseStream(keepAlives: KeepAlive, platform: { sse: DirectSse }, headers: Record<string, string>, owner: ClientGone): SseStream & { readonly response: Response } {
  const stream = new SseWriter(keepAlives, undefined, owner)
  const { sink, response } = platform.sse(headers, stream)
  stream.sink = sink
  return Object.assign(stream, { response })
}

/**
 * Counts synchronous runs that wrote to a stream: one microtask for all streams, queued by a run's first write.
 * What one run writes reaches no client before the run ends, so it says nothing of how fast a client reads.
 */
let runs = 0
let counting = false
function run(): number {
  if (!counting) {
    counting = true
    queueMicrotask(() => {
      runs++
      counting = false
    })
  }
  return runs
}

/**
 * JSON-RPC messages as SSE events on a sink, with keep-alives, and a client that stops reading let go.
 * A class rather than closures: one object for each open stream instead of six functions and their scope.
 */
class SseWriter implements SseStream {
  #open = true
  /** The run that wrote last, the bytes it queued, the most a run queued since the backlog last fit the bound. */
  #run = -1
  #burst = 0
  #large = 0

  // `sink` is set at once by directSseStream, which opens the connection with the stream as its listener.
  constructor(private readonly keepAlives: KeepAlive, public sink: SseSink | undefined, private readonly owner: ClientGone) {
    keepAlives.add(this)
  }

  ping(): void {
    this.#send(PING)
  }

  write(message: unknown, id?: string): void {
    let data = JSON.stringify(message)
    if (data.length > MAX_MESSAGE) {
      // The client waits for a response, so it learns why; a notification (a log, progress) too large is left out.
      const answer = message as { id?: JsonRpcId; result?: unknown; error?: unknown }
      if (!('result' in answer || 'error' in answer)) return
      data = JSON.stringify(errorResponse(answer.id, new McpError(INTERNAL_ERROR, `The response is too large for a stream: ${data.length} characters of JSON, at most ${MAX_MESSAGE}`)))
    }
    this.#send(`${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${data}\n\n`)
  }

  close(): void {
    if (!this.#stop()) return
    this.sink!.end()
  }

  /** The client went away: nothing more is written, the owner is aborted (once at most). */
  gone(): void {
    if (this.#stop()) this.owner.abort(new Error('client closed the stream'))
  }

  /**
   * The backlog is weighed before a run's first message, beyond the largest run still waiting: a client
   * reading a large result, or large logs and then the result, is not taken for one that stopped reading,
   * while one that stopped holds at most HIGH_WATER_MARK + MAX_BACKLOG and two runs' messages (each message
   * at most MAX_MESSAGE).
   */
  #send(text: string): void {
    if (!this.#open) return
    const sink = this.sink!
    const now = run()
    if (now !== this.#run) {
      const backlog = sink.queued() - HIGH_WATER_MARK
      this.#large = backlog <= MAX_BACKLOG ? 0 : Math.max(this.#large, this.#burst)
      if (backlog > MAX_BACKLOG + this.#large) {
        // The client stopped reading: end the stream; it can reconnect and refetch.
        this.gone()
        sink.destroy()
        return
      }
      this.#run = now
      this.#burst = 0
    }
    const before = sink.queued()
    sink.write(text)
    // What of it the sink holds: Node may have handed some to the socket already.
    this.#burst += sink.queued() - before
  }

  /** False when the stream had stopped already. */
  #stop(): boolean {
    if (!this.#open) return false
    this.#open = false
    this.keepAlives.delete(this)
    return true
  }
}

/**
 * The SSE response of a request: on the connection itself where the platform offers it (`sse`), whose headers
 * go out at once (CORS ones included, as they could not be added to a Response later), else a Response body.
 */
export function openSse(keepAlives: KeepAlive, platform: { readonly sse?: DirectSse | undefined }, raw: Request, cancel: Cancellation): { stream: SseStream; response: Response } {
  if (platform.sse) {
    // Called on the platform: it may be a method of it.
    const direct = directSseStream(keepAlives, platform as { sse: DirectSse }, { ...SSE_HEADERS, ...corsHeaders(raw) }, cancel)
    return { stream: direct, response: direct.response }
  }
  const body = sseStream(keepAlives, cancel)
  // A stream lives on: from now on the request's own signal aborts its work too.
  void cancel.signal
  return { stream: body, response: new Response(body.body, { status: 200, headers: SSE_HEADERS }) }
}
