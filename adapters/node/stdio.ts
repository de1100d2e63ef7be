import type { Readable, Writable } from 'node:stream'
import {
  Cancellation, classify, createRuntime, errorResponse, exchange, isObject, notification, readId, resultResponse,
  type JsonRpcNotification, type JsonRpcRequest,
} from '../../src/core.js'
import { ERROR, McpError, type McpServer, type Notify, type RuntimeOptions } from '../../src/index.js'
import { LineSplitter } from './lines.js'
import { StdioSession } from './stdio-session.js'
import { defaultTelemetry } from './telemetry.js'

export interface StdioOptions extends RuntimeOptions {
  input?: Readable | undefined
  output?: Writable | undefined
  /** Longest line accepted, in bytes (default 4 MB); longer ones are dropped with -32600. */
  maxMessageBytes?: number | undefined
  /** Passed to handlers as `ctx.env`. */
  env?: unknown
  /** How long requests in flight and tasks running when the input ends may take to finish (default 2 s). */
  shutdownGraceMs?: number | undefined
}

export interface StdioServer {
  /** Resolves when the input ends (or `close` is called) and everything is cleaned up. */
  readonly closed: Promise<void>
  /** Ends every subscription (telling the client with notifications/cancelled), cancels requests, stops. */
  close(): Promise<void>
  /** Tells listen streams on every instance sharing the backplane that something changed. */
  readonly notify: Notify
}

interface InFlight { readonly cancel: Cancellation; readonly done: Promise<void>; readonly stream: boolean }

/**
 * A line as a JSON-RPC message; undefined for a blank one, for the client's answer to a request of ours
 * (taken by `answered`), or once the error saying what is wrong went out.
 */
function readLine(line: string, write: (message: unknown) => void, answered: (body: Record<string, unknown>) => boolean): ReturnType<typeof classify> | undefined {
  if (line.trim() === '') return undefined
  let body: unknown
  try {
    body = JSON.parse(line)
  } catch {
    return void write(errorResponse(undefined, new McpError(ERROR.PARSE, 'Parse error: the line is not valid JSON')))
  }
  if (isObject(body) && !('method' in body) && answered(body)) return undefined
  try {
    return classify(body)
  } catch (e) {
    return void write(errorResponse(readId(body), e as McpError))
  }
}

/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, through the same exchange core as HTTP.
 * Requests run concurrently; `notifications/cancelled` from the client cancels a request or a subscription;
 * listen notifications are told apart by their subscriptionId. Nothing but protocol messages goes to stdout.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serveStdio } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'files', version: '1.0.0' })
 *   .tool('list_files', { description: 'Lists the working directory' }, () => 'README.md')
 *
 * const stdio = serveStdio(server)   // stdin/stdout; log to stderr, never to stdout
 * await stdio.closed                 // the client closed stdin
 * ```
 */
export function serveStdio(server: McpServer, options: StdioOptions = {}): StdioServer {
  const runtime = createRuntime(server, { telemetry: defaultTelemetry, ...options })
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const limit = options.maxMessageBytes ?? 4 * 1024 * 1024
  const inFlight = new Map<string, InFlight>()
  // Request ids are strings and integers: no other JSON value (a cancel's requestId may be any) has their key.
  const key = (id: unknown) => JSON.stringify(id)

  const write = (message: unknown) => {
    if (output.writable) output.write(`${JSON.stringify(message)}\n`)
  }
  // A client that closed its end of stdout must not crash the server: stop instead.
  output.on('error', () => void close())
  let stopped = false
  // A 2025 client's session: the connection, from its initialize on.
  let session: StdioSession | undefined

  const onNotification = (message: JsonRpcNotification) => {
    if (message.method !== 'notifications/cancelled') return
    inFlight.get(key(message.params?.requestId))?.cancel.abort(new Error('cancelled by the client'))
  }

  const onRequest = (message: JsonRpcRequest) => {
    const k = key(message.id)
    if (inFlight.has(k)) return write(errorResponse(message.id, new McpError(ERROR.INVALID_REQUEST, `Request id ${k} is already in use`)))
    const cancel = new Cancellation()
    const stream = runtime.method('modern', message.method)?.stream === true
    const emit = (n: JsonRpcNotification) => cancel.aborted || write(n)
    const done = exchange(runtime, message, { versionHeader: null, cancel, emit, env: options.env, keepsSessions: true, session }).then((answer) => {
      inFlight.delete(k)
      if (message.method === 'initialize' && answer.ok && answer.profile.era === 'legacy') {
        session?.close()
        session = new StdioSession(runtime, message.params ?? {}, write)
      }
      // A cancelled request gets no answer at all, not even the error its cancellation caused.
      if (cancel.aborted) return
      if (!answer.ok) return write(errorResponse(answer.id, answer.error))
      // The server ended a stream (shutdown, lifetime): on stdio that is told with a cancellation.
      if (stream) return write(notification('notifications/cancelled', { requestId: answer.id, reason: 'The server ended the subscription' }))
      if (answer.result) write(resultResponse(answer.id, answer.result))
    })
    inFlight.set(k, { cancel, done, stream })
  }

  const onLine = (line: string) => {
    const incoming = readLine(line, write, (body) => session?.answered(body) ?? false)
    if (incoming?.kind === 'notification') onNotification(incoming.message)
    else if (incoming) onRequest(incoming.message)
  }

  const lines = new LineSplitter(limit, onLine, () => write(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, `Message exceeds ${limit} bytes`))))
  const onData = (chunk: Buffer | string) => lines.push(chunk)

  let finish!: () => void
  const closed = new Promise<void>((resolve) => (finish = resolve))
  const close = async (graceMs = 0) => {
    if (stopped) return closed
    stopped = true
    input.off('data', onData)
    // Let requests already read and the tasks running here finish (within the grace period), then let their
    // changes fan out.
    const requests = [...inFlight.values()].filter((f) => !f.stream).map((f) => f.done)
    if (graceMs > 0) {
      const settled = Promise.allSettled(requests).then(() => runtime.idle())
      await Promise.race([settled, new Promise((r) => setTimeout(r, graceMs).unref())])
      await new Promise((r) => setImmediate(r))
    }
    const streams = [...inFlight.values()].filter((f) => f.stream).map((f) => f.done)
    session?.close()
    await runtime.close()
    await Promise.allSettled(streams)
    for (const { cancel } of inFlight.values()) cancel.abort(new Error('the server is stopping'))
    // Resolve once what was written has been handed to the OS, so that exiting loses nothing.
    if (output.writable) output.write('', () => finish())
    else finish()
    return closed
  }

  input.on('data', onData)
  input.once('end', () => {
    lines.end()
    void close(options.shutdownGraceMs ?? 2000)
  })
  return { closed, close: () => close(), notify: runtime.notify }
}
