// Payload format 1.0: an API Gateway REST API (streams with responseTransferMode STREAM) or an ALB (buffered).
import { STATUS_CODES } from 'node:http'
import { pairs, responseHeaders, toRequest, type Plan } from './http.js'

type Multi = Readonly<Record<string, readonly string[] | undefined>> | null | undefined
type Single = Readonly<Record<string, string | undefined>> | null | undefined

export interface RestEvent {
  readonly httpMethod: string
  readonly path: string
  readonly headers?: Single
  /** Every value of every header; present on REST APIs, and on an ALB when its target group enables it. */
  readonly multiValueHeaders?: Multi
  readonly queryStringParameters?: Single
  readonly multiValueQueryStringParameters?: Multi
  readonly body?: string | null | undefined
  readonly isBase64Encoded?: boolean | undefined
  readonly requestContext?: { readonly domainName?: string | undefined; readonly elb?: unknown; readonly identity?: { readonly sourceIp?: string | undefined } | undefined } | undefined
}

export interface RestResult {
  statusCode: number
  /** An ALB wants the status line's text too. */
  statusDescription?: string
  headers?: Record<string, string>
  multiValueHeaders?: Record<string, string[]>
  body: string
  isBase64Encoded: false
}

export const isRestEvent = (event: unknown): event is RestEvent =>
  typeof (event as RestEvent | undefined)?.httpMethod === 'string' && typeof (event as RestEvent).path === 'string'

function* multiPairs(map: Multi): Generator<[string, string]> {
  for (const [name, values] of Object.entries(map ?? {})) for (const value of values ?? []) yield [name, value]
}

export function planRestEvent(event: RestEvent): Plan<RestResult> {
  const alb = event.requestContext?.elb !== undefined
  return {
    // An ALB has no such field (only X-Forwarded-For, which the client writes): its requests count as unknown.
    clientAddress: event.requestContext?.identity?.sourceIp,
    request(signal) {
      const params = event.multiValueQueryStringParameters ? [...multiPairs(event.multiValueQueryStringParameters)] : [...pairs(event.queryStringParameters)]
      // API Gateway decodes query values, an ALB passes them on as the client encoded them.
      const query = alb ? params.map(([k, v]) => `${k}=${v}`).join('&') : new URLSearchParams(params).toString()
      return toRequest({
        method: event.httpMethod,
        path: query ? `${event.path}?${query}` : event.path,
        headers: event.multiValueHeaders ? multiPairs(event.multiValueHeaders) : pairs(event.headers),
        body: event.body,
        isBase64Encoded: event.isBase64Encoded,
        domainName: event.requestContext?.domainName,
        signal,
      })
    },
    // API Gateway's streaming prelude: cookies travel as repeated Set-Cookie values.
    prelude(response) {
      const { headers, cookies } = responseHeaders(response)
      return { statusCode: response.status, headers, multiValueHeaders: cookies.length ? { 'set-cookie': cookies } : {} }
    },
    async result(response) {
      const { headers, cookies } = responseHeaders(response)
      const body = await response.text()
      const status = alb ? { statusDescription: `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim() } : {}
      // An ALB answers in multiValueHeaders exactly when its event came with them, and ignores the other form.
      if (event.multiValueHeaders || !alb) {
        const multiValueHeaders: Record<string, string[]> = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]))
        if (cookies.length) multiValueHeaders['set-cookie'] = cookies
        return { statusCode: response.status, ...status, multiValueHeaders, body, isBase64Encoded: false }
      }
      // Without them an ALB passes one header of each name: the last cookie wins.
      if (cookies.length) headers['set-cookie'] = cookies[cookies.length - 1] as string
      return { statusCode: response.status, ...status, headers, body, isBase64Encoded: false }
    },
  }
}
