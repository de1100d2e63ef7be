/**
 * A function URL's request side: the HTTP request as the payload-2.0 event AWS's front end hands the
 * function, within Lambda's request payload limit.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The largest request payload Lambda takes for a streaming invocation (6 MB). */
const MAX_REQUEST_BYTES = 6 * 1024 * 1024

/** The body, or undefined when it exceeds Lambda's request payload limit. */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size <= MAX_REQUEST_BYTES) chunks.push(c)
    })
    req.on('end', () => resolve(size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

const TEXT = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i

/** The request as a function URL's payload-2.0 event. */
export function toEvent(req: IncomingMessage, body: Buffer): object {
  const url = new URL(req.url ?? '/', 'http://localhost')
  const headers: Record<string, string> = {}
  const cookies: string[] = []
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] as string).toLowerCase()
    const value = req.rawHeaders[i + 1] as string
    if (name === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean))
    else headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`
  }
  const text = TEXT.test(headers['content-type'] ?? '')
  const now = new Date()
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !text } : { isBase64Encoded: false }),
  }
}
