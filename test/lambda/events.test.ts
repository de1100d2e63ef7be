/**
 * Lambda's event shapes as Requests, and Responses in the forms the integrations take back
 * (adapters/lambda/http.ts, url-event.ts, rest-event.ts), in-process: what decides which shape an event
 * is, what crosses from one hop to the next and what does not, and the ALB's own forms.
 */
import { describe, expect, it } from 'vitest'
import { responseHeaders, toRequest, type RequestParts } from '../../adapters/lambda/http.js'
import { isRestEvent, planRestEvent, type RestEvent } from '../../adapters/lambda/rest-event.js'
import { isUrlEvent } from '../../adapters/lambda/url-event.js'

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length']
const parts = (patch: Partial<RequestParts> = {}): RequestParts => ({
  method: 'POST', path: '/mcp', headers: [], body: '{}', isBase64Encoded: false, domainName: 'fn.lambda-url.eu-west-1.on.aws', signal: new AbortController().signal, ...patch,
})

describe('an event as a Request', () => {
  it('passes no hop-by-hop header on, in any case of its name, and every other header', async () => {
    const request = toRequest(parts({ headers: [...HOP_BY_HOP.map((h) => [h.toUpperCase(), '1'] as const), ['x-kept', 'yes'], ['host', 'mcp.example.com']] }))
    for (const name of HOP_BY_HOP) expect(request.headers.has(name)).toBe(false)
    expect(request.headers.get('x-kept')).toBe('yes')
    expect(request.url).toBe('https://mcp.example.com/mcp')
  })

  it('takes the body of any method but GET and HEAD, base64 decoded when the event says so', async () => {
    expect(await toRequest(parts({ body: Buffer.from('{"a":1}').toString('base64'), isBase64Encoded: true })).text()).toBe('{"a":1}')
    expect(await toRequest(parts({ method: 'DELETE', body: 'x' })).text()).toBe('x')
    for (const method of ['GET', 'HEAD']) expect(toRequest(parts({ method, body: 'ignored' })).body).toBeNull()
    for (const body of [null, undefined]) {
      expect(toRequest(parts({ body })).body).toBeNull()
      // An event that says base64 but carries no body has none (there is nothing to decode).
      expect(toRequest(parts({ body, isBase64Encoded: true })).body).toBeNull()
    }
    // Without a Host header, the domain the event names.
    expect(toRequest(parts()).url).toBe('https://fn.lambda-url.eu-west-1.on.aws/mcp')
  })
})

describe('a Response in the integrations\' forms', () => {
  it('leaves hop-by-hop headers out, and Set-Cookie apart, each cookie whole', () => {
    const headers = new Headers([...HOP_BY_HOP.filter((h) => h !== 'content-length').map((h) => [h, '1'] as [string, string]), ['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2; Path=/']])
    const response = new Response('{}', { headers })
    expect(responseHeaders(response)).toEqual({ headers: { 'content-type': 'application/json' }, cookies: ['a=1', 'b=2; Path=/'] })
  })
})

describe('which event is which', () => {
  const url = { rawPath: '/mcp', requestContext: { http: { method: 'POST' } } }
  const rest = { httpMethod: 'POST', path: '/mcp' }
  it('a function URL (or HTTP API) event has requestContext.http.method and rawPath, both strings', () => {
    expect(isUrlEvent(url)).toBe(true)
    expect(isUrlEvent({ ...url, rawPath: undefined })).toBe(false)
    expect(isUrlEvent({ ...url, requestContext: { http: { method: 1 } } })).toBe(false)
    expect(isUrlEvent(rest)).toBe(false)
    expect(isUrlEvent(undefined)).toBe(false)
  })

  it('a REST API or ALB event has httpMethod and path, both strings', () => {
    expect(isRestEvent(rest)).toBe(true)
    expect(isRestEvent({ ...rest, path: undefined })).toBe(false)
    expect(isRestEvent({ ...rest, httpMethod: ['POST'] })).toBe(false)
    expect(isRestEvent(url)).toBe(false)
  })
})

describe('an ALB\'s answer', () => {
  const alb = (patch: Partial<RestEvent> = {}) => planRestEvent({ httpMethod: 'POST', path: '/mcp', body: '{}', isBase64Encoded: false, requestContext: { elb: { targetGroupArn: 'arn' } }, ...patch } as RestEvent)
  const cookies = () => new Headers([['content-type', 'text/plain'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']])

  it('carries a status description, the status alone where it has no name', async () => {
    expect(await alb().result(new Response('ok', { status: 200 }))).toMatchObject({ statusCode: 200, statusDescription: '200 OK' })
    expect(await alb().result(new Response('ok', { status: 299 }))).toMatchObject({ statusDescription: '299' })
  })

  it('answers in single-value headers without multiValueHeaders in its event: one cookie, the last', async () => {
    const result = await alb({ headers: { host: 'h' } }).result(new Response('ok', { headers: cookies() }))
    expect(result).toEqual({ statusCode: 200, statusDescription: '200 OK', headers: { 'content-type': 'text/plain', 'set-cookie': 'b=2' }, body: 'ok', isBase64Encoded: false })
  })

  it('answers in multiValueHeaders when its event came with them: every cookie', async () => {
    const result = await alb({ multiValueHeaders: { host: ['h'], 'x-empty': undefined as never } }).result(new Response('ok', { headers: cookies() }))
    expect(result).toMatchObject({ multiValueHeaders: { 'content-type': ['text/plain'], 'set-cookie': ['a=1', 'b=2'] } })
    expect(result).not.toHaveProperty('headers')
  })
})
