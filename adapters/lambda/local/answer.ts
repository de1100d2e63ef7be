/**
 * A function URL's response side: what the runtime client posted becomes the HTTP response. A streamed
 * response's prelude (JSON, then 8 NUL bytes) gives status, headers and cookies, its body goes on as it
 * arrives, held back in small writes as Lambda does; a buffered result is read as a function URL reads it.
 */
import type { ServerResponse } from 'node:http'
import type { Outcome } from './runtime-api.js'

const PRELUDE_TYPE = 'application/vnd.awslambda.http-integration-response'

/** Writes what the function answered; resolves once its response is over (the environment is free again). */
export async function answer(outcome: Outcome, res: ServerResponse, holdBytes: number): Promise<void> {
  if (outcome.kind === 'error') {
    res.writeHead(502, { 'content-type': 'application/json', 'x-amzn-errortype': 'LambdaFunctionError' })
    res.end('{"Message":"Internal Server Error"}')
    return
  }
  if (outcome.kind === 'result') return void writeResult(outcome.payload, res)
  const { body } = outcome
  let head: { statusCode: number; headers: Record<string, string>; cookies: string[] } | undefined
  let pending: Buffer[] = []
  let pendingBytes = 0
  let clientGone = false
  res.once('close', () => (clientGone = !res.writableFinished))
  const flush = () => {
    if (pendingBytes === 0 && pending.length === 0) return
    if (!clientGone) res.write(Buffer.concat(pending))
    pending = []
    pendingBytes = 0
  }
  const pass = (chunk: Buffer) => {
    if (chunk.length === 0) return
    start()
    pending.push(chunk)
    pendingBytes += chunk.length
    if (pendingBytes >= holdBytes) flush()
  }
  let preludeBytes: Buffer | undefined = outcome.contentType === PRELUDE_TYPE ? Buffer.alloc(0) : undefined
  if (!preludeBytes) head = { statusCode: 200, headers: { 'content-type': outcome.contentType }, cookies: [] }
  // Headers go out with the prelude, or without one with the first bytes: a function that fails before
  // either gets the error answer instead.
  const start = () => {
    if (!head || res.headersSent) return
    res.writeHead(head.statusCode, { ...head.headers, ...(head.cookies.length ? { 'set-cookie': head.cookies } : {}) })
    res.flushHeaders()
  }
  // The runtime keeps writing whether or not the client still listens: Lambda never tells the function.
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (preludeBytes) {
      preludeBytes = Buffer.concat([preludeBytes, chunk])
      const end = preludeBytes.indexOf(Buffer.alloc(8))
      if (end < 0) continue
      const prelude = JSON.parse(preludeBytes.subarray(0, end).toString('utf8')) as { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }
      head = { statusCode: prelude.statusCode ?? 200, headers: prelude.headers ?? {}, cookies: prelude.cookies ?? [] }
      const rest = preludeBytes.subarray(end + 8)
      preludeBytes = undefined
      start()
      pass(rest)
      continue
    }
    pass(chunk)
  }
  const failed = body.trailers['lambda-runtime-function-error-type']
  if (!res.headersSent) {
    // An error before the prelude: the client sees what a failed invocation gives it.
    if (failed || !head) return answer({ kind: 'error', payload: '' }, res, holdBytes)
    start()
  }
  flush()
  if (!clientGone) res.end()
}

function writeResult(payload: string, res: ServerResponse): void {
  let result: unknown
  try {
    result = JSON.parse(payload)
  } catch {
    result = payload
  }
  const r = result as { statusCode?: unknown; headers?: Record<string, string>; cookies?: string[]; body?: string; isBase64Encoded?: boolean } | null
  if (r && typeof r === 'object' && typeof r.statusCode === 'number') {
    res.writeHead(r.statusCode, { ...r.headers, ...(r.cookies?.length ? { 'set-cookie': r.cookies } : {}) })
    res.end(r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64') : (r.body ?? ''))
    return
  }
  // A result without statusCode is the body itself, as JSON (what a function URL does with it).
  res.writeHead(200, { 'content-type': 'application/json' }).end(typeof result === 'string' ? result : JSON.stringify(result))
}

