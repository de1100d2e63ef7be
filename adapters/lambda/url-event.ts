// Payload format 2.0: a function URL (streams) or an API Gateway HTTP API (buffered).
import { pairs, responseHeaders, toRequest, type Plan } from './http.js'

export interface UrlEvent {
  readonly version?: string | undefined
  readonly rawPath: string
  readonly rawQueryString?: string | undefined
  /** Lower-cased names; repeated headers arrive joined with commas. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined
  /** The Cookie header, split: payload 2.0 moves it out of `headers`. */
  readonly cookies?: readonly string[] | undefined
  readonly body?: string | undefined
  readonly isBase64Encoded?: boolean | undefined
  readonly requestContext: { readonly domainName?: string | undefined; readonly http: { readonly method: string; readonly sourceIp?: string | undefined } }
}

export interface UrlResult {
  statusCode: number
  headers: Record<string, string>
  cookies: string[]
  body: string
  isBase64Encoded: false
}

export const isUrlEvent = (event: unknown): event is UrlEvent =>
  typeof (event as UrlEvent | undefined)?.requestContext?.http?.method === 'string' && typeof (event as UrlEvent).rawPath === 'string'

export function planUrlEvent(event: UrlEvent): Plan<UrlResult> {
  return {
    clientAddress: event.requestContext.http.sourceIp,
    request(signal) {
      const query = event.rawQueryString ? `?${event.rawQueryString}` : ''
      const cookies = event.cookies?.length ? [['cookie', event.cookies.join('; ')] as const] : []
      return toRequest({
        method: event.requestContext.http.method,
        path: `${event.rawPath}${query}`,
        headers: [...pairs(event.headers), ...cookies],
        body: event.body,
        isBase64Encoded: event.isBase64Encoded,
        domainName: event.requestContext.domainName,
        signal,
      })
    },
    prelude: (response) => ({ statusCode: response.status, ...responseHeaders(response) }),
    result: async (response) => ({ statusCode: response.status, ...responseHeaders(response), body: await response.text(), isBase64Encoded: false }),
  }
}
