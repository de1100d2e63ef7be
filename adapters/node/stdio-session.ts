import { isObject, SessionStream, type JsonObject, type Runtime, type Session } from '../../src/core.js'
import { ERROR, McpError, type ClientCapabilities, type Implementation, type InputRequest, type LogLevel } from '../../src/index.js'

/**
 * A 2025 client's session over stdio, which is the connection itself: what it declared in `initialize`, its
 * log level and its subscriptions live here as long as the connection; requests to the client go out on
 * stdout and its answers come back on stdin; list changes and resource updates (from any instance sharing
 * the backplane) go to stdout as notifications.
 */
export class StdioSession implements Session {
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
  logLevel: LogLevel | undefined
  readonly #pending = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>()
  readonly #stream: SessionStream
  #asked = 0

  constructor(runtime: Runtime, params: JsonObject, private readonly write: (message: unknown) => void) {
    this.client = {
      ...(isObject(params.clientInfo) ? { info: params.clientInfo as unknown as Implementation } : {}),
      capabilities: isObject(params.capabilities) ? params.capabilities : {},
    }
    // Its notifications count among the listen streams of the runtime (there is no client share on stdio).
    this.#stream = new SessionStream(runtime, { uris: [], client: undefined, expires: Infinity }, { write, close: () => {} })
    try {
      this.#stream.start()
    } catch (e) {
      // The runtime holds its most streams: the session goes on, without notifications.
      runtime.report(e, { during: 'stdio session' })
    }
  }

  async setLevel(level: LogLevel): Promise<void> {
    this.logLevel = level
  }

  async subscribe(uri: string, on: boolean): Promise<void> {
    this.#stream.follow(uri, on)
  }

  ask(requests: readonly InputRequest[], signal: AbortSignal): Promise<unknown[]> {
    return Promise.all(requests.map((request) => new Promise<unknown>((resolve, reject) => {
      const id = `mcp-edge-${++this.#asked}`
      const gone = () => {
        this.#pending.delete(id)
        reject(new McpError(ERROR.INTERNAL, 'The request ended before the client answered'))
      }
      if (signal.aborted) return gone()
      signal.addEventListener('abort', gone, { once: true })
      const settled = () => signal.removeEventListener('abort', gone)
      this.#pending.set(id, {
        resolve: (value) => void (settled(), resolve(value)),
        reject: (error) => void (settled(), reject(error)),
      })
      this.write({ jsonrpc: '2.0', id, method: request.method, params: request.params })
    })))
  }

  /** A JSON-RPC response read from stdin: whether it answered a request of ours (and was taken). */
  answered(message: JsonObject): boolean {
    const waiting = typeof message.id === 'string' ? this.#pending.get(message.id) : undefined
    if (!waiting) return false
    this.#pending.delete(message.id as string)
    const { error } = message
    if (isObject(error)) waiting.reject(new McpError(typeof error.code === 'number' ? error.code : ERROR.INTERNAL, `The client answered ${String(error.message ?? 'an error')}`))
    else waiting.resolve(message.result)
    return true
  }

  /** The connection ends, or a new initialize begins another session. */
  close(): void {
    this.#stream.end()
    for (const waiting of this.#pending.values()) waiting.reject(new McpError(ERROR.INTERNAL, 'The session ended before the client answered'))
    this.#pending.clear()
  }
}
