/**
 * A local Lambda Runtime API (the HTTP interface a runtime client polls for invocations and posts results
 * to), one per runtime process, the way each Lambda execution environment has its own. An environment
 * takes one invocation at a time: it asks for the next one only after finishing the last.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

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
}

export async function startRuntimeApi(): Promise<RuntimeApi> {
  let waiting: ServerResponse | undefined
  let queued: { id: string; event: unknown; deadlineMs: number } | undefined
  let running: Running | undefined
  let initError: string | undefined
  let polled!: () => void
  const ready = new Promise<void>((resolve) => (polled = resolve))

  const deliver = () => {
    if (!waiting || !queued) return
    const { id, event, deadlineMs } = queued
    queued = undefined
    const body = JSON.stringify(event)
    waiting.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': id,
      'lambda-runtime-deadline-ms': String(deadlineMs),
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:local:000000000000:function:mcp-edge',
      'lambda-runtime-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    })
    waiting.end(body)
    waiting = undefined
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? ''
    if (req.method === 'GET' && url === `${BASE}/invocation/next`) {
      polled()
      waiting = res
      res.once('close', () => {
        if (waiting === res) waiting = undefined
      })
      return deliver()
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url)
    if (req.method === 'POST' && match && running && decodeURIComponent(match[1] as string) === running.id) {
      const current = running
      const streaming = req.headers['lambda-runtime-function-response-mode'] === 'streaming'
      if (match[2] === 'response' && streaming) {
        current.settle({ kind: 'stream', contentType: String(req.headers['content-type'] ?? 'application/octet-stream'), body: req })
        req.once('end', () => {
          if (running === current) running = undefined
          res.writeHead(202).end('{"status":"OK"}')
        })
        return
      }
      return void readAll(req).then((payload) => {
        if (running === current) running = undefined
        current.settle({ kind: match[2] === 'response' ? 'result' : 'error', payload })
        res.writeHead(202).end('{"status":"OK"}')
      })
    }
    if (req.method === 'POST' && url === `${BASE}/init/error`) {
      return void readAll(req).then((payload) => {
        initError = payload
        running?.settle({ kind: 'error', payload })
        running = undefined
        res.writeHead(202).end('{"status":"OK"}')
      })
    }
    res.writeHead(404).end()
  }

  const server: Server = createServer(handle)
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    address: `127.0.0.1:${port}`,
    ready,
    get initError() {
      return initError
    },
    get idle() {
      return running === undefined && queued === undefined
    },
    invoke(event, timeoutMs) {
      if (running || queued) throw new Error('environment busy')
      const id = randomUUID()
      let settle!: (outcome: Outcome) => void
      const outcome = new Promise<Outcome>((resolve) => (settle = resolve))
      const deadlineMs = Date.now() + timeoutMs
      running = { id, settle }
      queued = { id, event, deadlineMs }
      deliver()
      return { id, event, deadlineMs, outcome }
    },
    fail(payload) {
      running?.settle({ kind: 'error', payload })
      running = undefined
      queued = undefined
    },
    close: () =>
      new Promise<void>((resolve) => {
        waiting?.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
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
