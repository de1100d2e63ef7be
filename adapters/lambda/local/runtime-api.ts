/**
 * A local Lambda Runtime API (the HTTP interface a runtime client polls for invocations and posts results
 * to), one per runtime process, the way each Lambda execution environment has its own. An environment
 * takes one invocation at a time: it asks for the next one only after finishing the last. It serves its
 * runtime process alone: whoever else polls it would take invocations (bearer tokens included) and could
 * answer them, so a connection from any other process (peer.ts), or naming another Host (a page that
 * rebinds a name to 127.0.0.1), is refused.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { heldBy } from './peer.js'

const BASE = '/2018-06-01/runtime'

/** How an invocation ended, as the runtime client reported it. */
export type Outcome =
  /** A streaming function's response: its body arrives as the runtime writes it (chunked, trailers at the end). */
  | { readonly kind: 'stream'; readonly contentType: string; readonly body: IncomingMessage }
  /** A buffered function's result (JSON text). */
  | { readonly kind: 'result'; readonly payload: string }
  /** The function failed (an error it threw, or the runtime's own) or its environment died. */
  | { readonly kind: 'error'; readonly payload: string }

export interface Invocation {
  readonly id: string
  readonly event: unknown
  readonly deadlineMs: number
  /** Resolves when the runtime starts answering (a stream) or has answered. */
  readonly outcome: Promise<Outcome>
  /**
   * Resolves when the invocation is over: the runtime asks for the next one (its handler has returned, after
   * the response and whatever it awaited besides) or its environment died. What Lambda bills: from the
   * event's delivery to then, in ms.
   */
  readonly ended: Promise<number>
}

export interface RuntimeApi {
  /** host:port, for AWS_LAMBDA_RUNTIME_API. */
  readonly address: string
  /** Resolves when the runtime client first asks for an invocation: its process has started and loaded the handler. */
  readonly ready: Promise<void>
  /** What the runtime client reported when the handler failed to load (its JSON: errorType, errorMessage), if it did. */
  readonly initError: string | undefined
  /** True while no invocation is running: the runtime client is waiting for the next. */
  readonly idle: boolean
  /** Hands an invocation to the runtime; the environment must be idle. */
  invoke(event: unknown, timeoutMs: number): Invocation
  /** Settles the running invocation, if any, as failed (its environment died). */
  fail(payload: string): void
  close(): Promise<void>
}

interface Running {
  id: string
  settle(outcome: Outcome): void
  /** Set once the event went out: when, for the billed duration. */
  deliveredAt?: number
  end(durationMs: number): void
}

/** A Runtime API for the process `owner` names (the runtime process now serving its environment). */
export async function startRuntimeApi(owner: () => number | undefined): Promise<RuntimeApi> {
  const api = new LocalRuntimeApi(owner)
  await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve))
  return api
}

const accepted = (res: ServerResponse) => res.writeHead(202).end('{"status":"OK"}')

class LocalRuntimeApi implements RuntimeApi {
  readonly server: Server = createServer((req, res) => void this.#admit(req).then((admitted) => {
    if (admitted) this.#handle(req, res)
    else res.writeHead(403).end()
  }))
  readonly ready: Promise<void>
  initError: string | undefined
  #polled!: () => void
  /** The runtime client's long poll for the next invocation. */
  #waiting: ServerResponse | undefined
  #queued: { id: string; event: unknown; deadlineMs: number } | undefined
  /** From invoke() until the runtime asks for the next invocation: an environment runs one at a time. */
  #running: Running | undefined
  /**
   * The last invocation the runtime moved on from: its answer may still be on the way. The runtime client
   * posts a streaming function's error without waiting for it (aws-lambda-ric `failResponseStream`), so that
   * POST can arrive after its GET of the next invocation.
   */
  #finishing: Running | undefined
  readonly #owner: () => number | undefined
  /** Each connection's verdict: its process is looked up once, on its first request. */
  readonly #peers = new WeakMap<Socket, Promise<boolean>>()

  constructor(owner: () => number | undefined) {
    this.#owner = owner
    this.ready = new Promise<void>((resolve) => (this.#polled = resolve))
    this.server.keepAliveTimeout = 0
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  get idle(): boolean {
    return this.#running === undefined && this.#queued === undefined
  }

  invoke(event: unknown, timeoutMs: number): Invocation {
    if (this.#running || this.#queued) throw new Error('environment busy')
    const id = randomUUID()
    let settle!: (outcome: Outcome) => void
    let end!: (durationMs: number) => void
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve))
    const ended = new Promise<number>((resolve) => (end = resolve))
    const deadlineMs = Date.now() + timeoutMs
    this.#running = { id, settle, end }
    this.#queued = { id, event, deadlineMs }
    this.#deliver()
    return { id, event, deadlineMs, outcome, ended }
  }

  fail(payload: string): void {
    this.#finishing?.settle({ kind: 'error', payload })
    this.#running?.settle({ kind: 'error', payload })
    this.#end()
    this.#queued = undefined
  }

  /** The running invocation is over; its answer may still come (see #finishing). */
  #end(): void {
    const running = this.#running
    this.#running = undefined
    this.#finishing = running
    running?.end(running.deliveredAt === undefined ? 0 : performance.now() - running.deliveredAt)
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting?.destroy()
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }

  #deliver(): void {
    const waiting = this.#waiting
    if (!waiting || !this.#queued) return
    const { id, event, deadlineMs } = this.#queued
    this.#queued = undefined
    this.#waiting = undefined
    if (this.#running) this.#running.deliveredAt = performance.now()
    waiting.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': id,
      'lambda-runtime-deadline-ms': String(deadlineMs),
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:local:000000000000:function:mcp-edge',
      'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    })
    waiting.end(JSON.stringify(event))
  }

  #admit(req: IncomingMessage): Promise<boolean> {
    if (req.headers.host !== this.address) return Promise.resolve(false)
    let verdict = this.#peers.get(req.socket)
    if (!verdict) this.#peers.set(req.socket, (verdict = heldBy(req.socket, this.#owner())))
    return verdict
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? ''
    if (req.method === 'GET' && url === `${BASE}/invocation/next`) {
      this.#polled()
      // Asking for the next means the last is over; its response may have ended long before.
      if (this.#running?.deliveredAt !== undefined) this.#end()
      this.#waiting = res
      res.once('close', () => {
        if (this.#waiting === res) this.#waiting = undefined
      })
      return this.#deliver()
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url)
    const id = match && decodeURIComponent(match[1] as string)
    const current = [this.#running, this.#finishing].find((r) => r !== undefined && r.id === id)
    if (req.method === 'POST' && match && current) {
      if (match[2] === 'response' && req.headers['lambda-runtime-function-response-mode'] === 'streaming') {
        current.settle({ kind: 'stream', contentType: String(req.headers['content-type'] ?? 'application/octet-stream'), body: req })
        return void req.once('end', () => accepted(res))
      }
      return void readAll(req).then((payload) => {
        current.settle({ kind: match[2] === 'response' ? 'result' : 'error', payload })
        accepted(res)
      })
    }
    if (req.method === 'POST' && url === `${BASE}/init/error`) {
      return void readAll(req).then((payload) => {
        this.initError = payload
        this.#running?.settle({ kind: 'error', payload })
        this.#end()
        accepted(res)
      })
    }
    res.writeHead(404).end()
  }
}

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}
