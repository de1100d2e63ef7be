// What every event shape shares: a Request from the event's parts, and a Response's status and headers in
// the forms Lambda's integrations take.

/**
 * Connection-level headers: they describe one hop, not the message. Lambda's front ends own the client
 * connection (some refuse a response that sets them), and a body is counted, never trusted by its
 * declared length (src/http/body.ts), so neither direction passes them on.
 */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'content-length',
])

/** One event shape's planner, bound to an event: the Request it makes and the forms its answer takes. */
export interface Plan<R> {
  request(signal: AbortSignal): Request
  /** The client's address as the integration saw it (whose share of limits an anonymous request uses). */
  readonly clientAddress?: string | undefined
  /** What a streaming function writes before the body (the runtime sends it with the first write, then 8 NULs). */
  prelude(response: Response): object
  /** The whole response as the integration takes it back from a buffered function. */
  result(response: Response): Promise<R>
}

export interface RequestParts {
  readonly method: string
  /** Path and query, e.g. `/mcp?x=1`. */
  readonly path: string
  readonly headers: Iterable<readonly [string, string]>
  readonly body: string | null | undefined
  readonly isBase64Encoded: boolean | undefined
  /** Used when the event has no Host header (a test event, a direct invoke). */
  readonly domainName: string | undefined
  readonly signal: AbortSignal
}

/** The event as a Web Request; a base64 body is decoded here, so the body limit counts the bytes sent. */
export function toRequest(parts: RequestParts): Request {
  const headers = new Headers()
  for (const [name, value] of parts.headers) {
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, value)
  }
  const host = headers.get('host') ?? parts.domainName ?? 'lambda.invalid'
  const hasBody = parts.body !== undefined && parts.body !== null && parts.method !== 'GET' && parts.method !== 'HEAD'
  return new Request(`https://${host}${parts.path}`, {
    method: parts.method,
    headers,
    body: hasBody ? (parts.isBase64Encoded ? base64Bytes(parts.body as string) : (parts.body as string)) : null,
    signal: parts.signal,
  })
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(text, 'base64')
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength)
}

/** A Response's headers without hop-by-hop ones; `set-cookie` apart, since each integration carries it its own way. */
export function responseHeaders(response: Response): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) headers[name] = value
  })
  return { headers, cookies: response.headers.getSetCookie() }
}

/** Pairs of a single-valued header map, skipping absent values. */
export function* pairs(map: Readonly<Record<string, string | undefined>> | null | undefined): Generator<[string, string]> {
  for (const [name, value] of Object.entries(map ?? {})) if (value !== undefined) yield [name, value]
}
