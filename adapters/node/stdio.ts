import type { Readable, Writable } from 'node:stream'
import { errorResponse, McpError, toMcpError } from '../../src/protocol/errors.js'
import { classify, notification, readId, resultResponse, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest } from '../../src/protocol/jsonrpc.js'
import { ERROR } from '../../src/protocol/constants.js'
import { Cancellation } from '../../src/server/cancellation.js'
import { dispatch } from '../../src/server/dispatch.js'
import { openListen, planListen } from '../../src/server/listen.js'
import { prepare } from '../../src/server/prepare.js'
import type { McpServer } from '../../src/server/server.js'

export interface StdioOptions {
  input?: Readable
  output?: Writable
  /** Longest line accepted, in bytes (default 4 MB); longer ones are dropped with -32600. */
  maxMessageBytes?: number
  /** Passed to handlers as `ctx.env`. */
  env?: unknown
  /** How long requests in flight when the input ends may take to finish (default 2 s). */
  shutdownGraceMs?: number
}

interface ListenEntry { id: JsonRpcId; unsubscribe?: () => void; closed: boolean }

export interface StdioServer {
  /** Resolves when the input ends (or `close` is called) and everything is cleaned up. */
  readonly closed: Promise<void>
  /** Ends every subscription (telling the client with notifications/cancelled), cancels requests, stops. */
  close(): Promise<void>
}

/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, the same dispatch as HTTP. Requests run
 * concurrently; `notifications/cancelled` from the client cancels a request or a subscription; listen
 * notifications are told apart by their subscriptionId. Nothing but protocol messages goes to stdout.
 */
export function serveStdio(server: McpServer, options: StdioOptions = {}): StdioServer {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const limit = options.maxMessageBytes ?? 4 * 1024 * 1024
  const inFlight = new Map<string, Cancellation>()
  const running = new Set<Promise<unknown>>()
  const subscriptions = new Map<string, ListenEntry>()
  const key = (id: JsonRpcId) => JSON.stringify(id)

  const write = (message: unknown) => {
    if (output.writable) output.write(`${JSON.stringify(message)}\n`)
  }
  // A client that closed its end of stdout must not crash the server: stop instead.
  output.on('error', () => void close())
  let stopped = false

  const endSubscription = (k: string, tell: boolean) => {
    const entry = subscriptions.get(k)
    if (!entry || entry.closed) return
    entry.closed = true
    subscriptions.delete(k)
    entry.unsubscribe?.()
    if (tell) write(notification('notifications/cancelled', { requestId: entry.id, reason: 'The server ended the subscription' }))
  }

  const onNotification = (message: JsonRpcNotification) => {
    if (message.method !== 'notifications/cancelled') return
    const requestId = message.params?.requestId
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    const k = key(requestId)
    inFlight.get(k)?.abort(new Error('cancelled by the client'))
    endSubscription(k, false)
  }

  const onRequest = async (message: JsonRpcRequest) => {
    const k = key(message.id)
    if (inFlight.has(k) || subscriptions.has(k)) {
      return write(errorResponse(message.id, new McpError(ERROR.INVALID_REQUEST, `Request id ${k} is already in use`)))
    }
    const prepared = prepare(server, message, { versionHeader: null })
    if (prepared.method === 'subscriptions/listen') {
      const plan = planListen(server, prepared.id, prepared.params, prepared.profile)
      const entry: ListenEntry = { id: prepared.id, closed: false }
      subscriptions.set(k, entry)
      const unsubscribe = await openListen(server, plan, (n) => entry.closed || write(n))
      // Cancelled while subscribing: undo at once.
      if (entry.closed) unsubscribe()
      else entry.unsubscribe = unsubscribe
      return
    }
    const cancel = new Cancellation()
    inFlight.set(k, cancel)
    try {
      const result = await dispatch(server, { ...prepared, cancel, emit: (n) => cancel.aborted || write(n), env: options.env })
      if (!cancel.aborted) write(resultResponse(message.id, result))
    } catch (e) {
      // A cancelled request gets no answer at all, not even the error its cancellation caused.
      if (!cancel.aborted) throw e
    } finally {
      inFlight.delete(k)
    }
  }

  const onLine = (line: string) => {
    if (line.trim() === '') return
    let body: unknown
    try {
      body = JSON.parse(line)
    } catch {
      return write(errorResponse(undefined, new McpError(ERROR.PARSE, 'Parse error: the line is not valid JSON')))
    }
    const id = readId(body)
    let incoming: ReturnType<typeof classify>
    try {
      incoming = classify(body)
    } catch (e) {
      return write(errorResponse(id, toMcpError(e)))
    }
    if (incoming.kind === 'notification') return onNotification(incoming.message)
    const done = onRequest(incoming.message).catch((e) => {
      subscriptions.delete(key(incoming.message.id))
      write(errorResponse(incoming.message.id, toMcpError(e)))
    })
    running.add(done)
    void done.finally(() => running.delete(done))
  }

  // Lines are split by hand, in bytes, so that one endless line cannot take all memory.
  let pending: Buffer[] = []
  let pendingBytes = 0
  let overflow = false
  const onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let newline: number
    while ((newline = data.indexOf(0x0a)) >= 0) {
      const line = Buffer.concat([...pending, data.subarray(0, newline)])
      pending = []
      pendingBytes = 0
      data = data.subarray(newline + 1)
      if (overflow) overflow = false
      else if (line.byteLength <= limit) onLine(line.toString('utf8'))
      else tooLong()
    }
    pendingBytes += data.byteLength
    if (pendingBytes > limit) {
      if (!overflow) tooLong()
      overflow = true
      pending = []
      pendingBytes = 0
    } else if (data.byteLength > 0) pending.push(data)
  }
  const tooLong = () => write(errorResponse(undefined, new McpError(ERROR.INVALID_REQUEST, `Message exceeds ${limit} bytes`)))

  let finish!: () => void
  const closed = new Promise<void>((resolve) => (finish = resolve))
  const close = async (graceMs = 0) => {
    if (stopped) return closed
    stopped = true
    input.off('data', onData)
    // Let requests already read finish (within the grace period), then let their changes fan out.
    if (graceMs > 0 && running.size > 0) {
      await Promise.race([Promise.allSettled([...running]), new Promise((r) => setTimeout(r, graceMs).unref())])
      await new Promise((r) => setImmediate(r))
    }
    for (const k of [...subscriptions.keys()]) endSubscription(k, true)
    for (const cancel of inFlight.values()) cancel.abort(new Error('the server is stopping'))
    // Resolve once what was written has been handed to the OS, so that exiting loses nothing.
    if (output.writable) output.write('', () => finish())
    else finish()
    return closed
  }

  input.on('data', onData)
  input.once('end', () => {
    if (pendingBytes > 0 && !overflow) onLine(Buffer.concat(pending).toString('utf8'))
    void close(options.shutdownGraceMs ?? 2000)
  })
  return { closed, close: () => close() }
}
