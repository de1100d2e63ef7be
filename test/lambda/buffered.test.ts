/**
 * The buffered Lambda handler (HTTP APIs, ALBs) called as the runtime calls it, and the event planners:
 * what each integration's event becomes, and what goes back in each integration's form.
 */
import { describe, expect, it } from 'vitest'
import { createBufferedLambdaHandler, type LambdaContext } from '../../adapters/lambda/index.js'
import { McpServer, memoryTaskStore, sessions, tasks } from '../../src/index.js'
import { redisBackplane, redisTaskStore } from '../../adapters/redis/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { planRestEvent } from '../../adapters/lambda/rest-event.js'
import { planUrlEvent } from '../../adapters/lambda/url-event.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { turns } from '../helpers/async.js'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { validateServerMessage } from '../helpers/wire.js'

const server = createEverythingServer().tool('ignores_abort', { description: 'Never returns' }, () => new Promise<string>(() => {}))
const handler = createBufferedLambdaHandler(server, { extensions: [tasks()] })
const context = (remainingMs = 10_000): LambdaContext => ({ getRemainingTimeInMillis: () => remainingMs })
const message = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META_2026({}, { progressToken: 't' }) } })

/** An API Gateway HTTP API event (payload 2.0), as AWS sends it. */
function httpApiEvent(method: string, params: Record<string, unknown> = {}) {
  return {
    version: '2.0', routeKey: 'POST /mcp', rawPath: '/mcp', rawQueryString: '',
    headers: { ...modernHeaders(method, params), host: 'abc123.execute-api.eu-west-1.amazonaws.com' },
    requestContext: { domainName: 'abc123.execute-api.eu-west-1.amazonaws.com', http: { method: 'POST', path: '/mcp' } },
    body: message(method, params), isBase64Encoded: false,
  }
}

/** An ALB event, with multi-value headers when the target group enables them. */
function albEvent(method: string, params: Record<string, unknown>, multi: boolean) {
  const headers = { ...modernHeaders(method, params), host: 'mcp.example.com' }
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/mcp/1' } },
    httpMethod: 'POST', path: '/mcp',
    ...(multi ? { multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])), multiValueQueryStringParameters: {} } : { headers, queryStringParameters: {} }),
    body: message(method, params), isBase64Encoded: false,
  }
}

const parse = (result: { body: string }, method: string) => {
  const body = JSON.parse(result.body)
  expect(validateServerMessage('2026-07-28', method, body)).toEqual([])
  return body
}

describe('buffered handler', () => {
  it('HTTP API: a tool that reports progress answers with one JSON result, its notifications dropped', async () => {
    const ctx = context()
    const result = await handler(httpApiEvent('tools/call', { name: 'test_tool_with_progress', arguments: {} }), ctx)
    expect(result).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' }, cookies: [], isBase64Encoded: false })
    expect(parse(result, 'tools/call')).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Progress complete' }] } })
    // The runtime must not wait for an empty event loop (a Redis connection never lets it empty).
    expect(ctx.callbackWaitsForEmptyEventLoop).toBe(false)
  })

  it('HTTP API: subscriptions/listen is refused with the reason, not left hanging', async () => {
    const result = await handler(httpApiEvent('subscriptions/listen', { notifications: { toolsListChanged: true } }), context())
    expect(result.statusCode).toBe(200)
    const body = parse(result, 'subscriptions/listen')
    expect(body.error.code).toBe(-32600)
    expect(body.error.message).toMatch(/subscriptions\/listen streams its answer.*RESPONSE_STREAM/)
  })

  it('ALB: the answer in the form its event came in, with the status line text', async () => {
    const multi = await handler(albEvent('tools/list', {}, true), context())
    expect(multi).toMatchObject({ statusCode: 200, statusDescription: '200 OK', multiValueHeaders: { 'content-type': ['application/json'] } })
    expect(multi).not.toHaveProperty('headers')
    expect(parse(multi as { body: string }, 'tools/list').result.tools.length).toBeGreaterThan(5)

    const single = await handler(albEvent('no/such-method', {}, false), context())
    expect(single).toMatchObject({ statusCode: 404, statusDescription: '404 Not Found', headers: { 'content-type': 'application/json' } })
    expect(single).not.toHaveProperty('multiValueHeaders')
    expect(JSON.parse((single as { body: string }).body)).toMatchObject({ error: { code: -32601 } })
  })

  it('ALB: a target group health check at healthPath is answered 200, whatever its Host', async () => {
    const check = {
      requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/mcp/1' } },
      httpMethod: 'GET', path: '/healthz', headers: { host: '10.0.1.17', 'user-agent': 'ELB-HealthChecker/2.0' }, queryStringParameters: {},
      body: '', isBase64Encoded: false,
    }
    const result = await createBufferedLambdaHandler(server, { extensions: [tasks()], healthPath: '/healthz', allowedHosts: ['mcp.example.com'] })(check, context())
    expect({ status: result.statusCode, body: result.body }).toEqual({ status: 200, body: '{"status":"serving"}' })
  })

  it('a handler still running at the deadline: 504 with a JSON-RPC error, before the function times out', async () => {
    const result = await createBufferedLambdaHandler(server, { extensions: [tasks()], deadlineMarginMs: 200 })(httpApiEvent('tools/call', { name: 'ignores_abort', arguments: {} }), context(300))
    expect(result.statusCode).toBe(504)
    expect(JSON.parse(result.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: expect.stringMatching(/ran out of time/) } })
  })

  it('waits for ctx.waitUntil work before the invocation returns, and no longer than the deadline', async () => {
    let finish!: () => void
    const work = new Promise<void>((resolve) => (finish = resolve))
    const background = new McpServer({ name: 'bg', version: '1.0.0' }).tool('later', { description: 'answers, then works on' }, (_args, ctx) => {
      ctx.waitUntil(work)
      return 'answered'
    })
    const invoke = createBufferedLambdaHandler(background, { deadlineMarginMs: 200 })
    let returned = false
    const pending = invoke(httpApiEvent('tools/call', { name: 'later', arguments: {} }), context()).then((r) => ((returned = true), r))
    await turns(10)
    expect(returned).toBe(false)
    finish()
    expect(parse(await pending, 'tools/call').result.content).toEqual([{ type: 'text', text: 'answered' }])

    // Work that never ends holds the invocation only until the deadline ends it.
    const stuck = new McpServer({ name: 'stuck', version: '1.0.0' }).tool('later', { description: 'never finishes its work' }, (_args, ctx) => {
      ctx.waitUntil(new Promise(() => {}))
      return 'answered'
    })
    const result = await createBufferedLambdaHandler(stuck, { deadlineMarginMs: 200 })(httpApiEvent('tools/call', { name: 'later', arguments: {} }), context(300))
    expect(result.statusCode).toBe(200)
  })

  it('an event that is not HTTP is an error for the invoker', async () => {
    await expect(handler({ Records: [] } as never, context())).rejects.toThrow(/not an HTTP event/)
  })
})

describe('event planners', () => {
  const signal = new AbortController().signal

  it('payload 2.0: path and query, cookies back into one header, hop-by-hop headers dropped, base64 decoded', async () => {
    const request = planUrlEvent({
      rawPath: '/mcp', rawQueryString: 'a=1&b=2', cookies: ['s=1', 't=2'],
      headers: { host: 'x.lambda-url.eu-west-1.on.aws', 'content-type': 'application/json', connection: 'keep-alive', 'content-length': '999' },
      body: Buffer.from('{"é":1}').toString('base64'), isBase64Encoded: true,
      requestContext: { http: { method: 'POST' } },
    }).request(signal)
    expect(request.url).toBe('https://x.lambda-url.eu-west-1.on.aws/mcp?a=1&b=2')
    expect(request.headers.get('cookie')).toBe('s=1; t=2')
    expect(request.headers.has('connection')).toBe(false)
    expect(request.headers.has('content-length')).toBe(false)
    expect(await request.text()).toBe('{"é":1}')
  })

  it('payload 1.0: every value of a repeated header and query parameter; the domain when Host is absent', async () => {
    const request = planRestEvent({
      httpMethod: 'POST', path: '/prod/mcp',
      multiValueHeaders: { accept: ['application/json', 'text/event-stream'], 'transfer-encoding': ['chunked'] },
      multiValueQueryStringParameters: { tag: ['a', 'b'] },
      body: '{}', requestContext: { domainName: 'api.example.com' },
    }).request(signal)
    expect(request.url).toBe('https://api.example.com/prod/mcp?tag=a&tag=b')
    expect(request.headers.get('accept')).toBe('application/json, text/event-stream')
    expect(request.headers.has('transfer-encoding')).toBe(false)
    expect(await request.text()).toBe('{}')
  })

  it('query strings: API Gateway decoded them (encoded again here), an ALB did not (passed on as they are)', () => {
    const query = { path: '/mcp', httpMethod: 'GET', queryStringParameters: { next: 'a/b c' } }
    expect(planRestEvent(query).request(signal).url).toBe('https://lambda.invalid/mcp?next=a%2Fb+c')
    const alb = { ...query, queryStringParameters: { next: 'a%2Fb%20c' }, requestContext: { elb: {} } }
    expect(planRestEvent(alb).request(signal).url).toBe('https://lambda.invalid/mcp?next=a%2Fb%20c')
  })

  it('responses: cookies apart (payload 2.0 `cookies`, REST `Set-Cookie` values), hop-by-hop headers dropped', () => {
    const response = () => new Response(null, { status: 201, headers: [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['connection', 'close'], ['x-kept', 'yes']] })
    const url = { rawPath: '/', requestContext: { http: { method: 'GET' } } }
    expect(planUrlEvent(url).prelude(response())).toEqual({ statusCode: 201, headers: { 'x-kept': 'yes' }, cookies: ['a=1', 'b=2'] })
    expect(planRestEvent({ httpMethod: 'GET', path: '/' }).prelude(response())).toEqual({
      statusCode: 201, headers: { 'x-kept': 'yes' }, multiValueHeaders: { 'set-cookie': ['a=1', 'b=2'] },
    })
  })
})

describe('a Lambda handler\'s settings from the function\'s environment', () => {
  const plain = new McpServer({ name: 'env', version: '1.0.0' }).tool('plain', { description: 'answers' }, () => 'plain')
  /** A handler made with these environment variables set (and the rest as they were), and the warnings it printed. */
  function made(env: Record<string, string>, options: Parameters<typeof createBufferedLambdaHandler>[1] = {}) {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
    const warnings: unknown[] = []
    const warn = console.warn
    console.warn = (...args: unknown[]) => void warnings.push(args.join(' '))
    Object.assign(process.env, env)
    try {
      return { handler: createBufferedLambdaHandler(plain, options), warnings }
    } finally {
      console.warn = warn
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
  const asked = (host: string, origin?: string) => {
    const event = httpApiEvent('tools/list')
    return { ...event, headers: { ...event.headers, host, ...(origin ? { origin } : {}) } }
  }

  it('takes MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS as comma-separated lists, spaces aside', async () => {
    const { handler } = made({ MCP_ALLOWED_HOSTS: ' mcp.example.com , api.example.com ', MCP_ALLOWED_ORIGINS: ' https://app.example , https://other.example' })
    expect((await handler(asked('api.example.com'), context())).statusCode).toBe(200)
    expect((await handler(asked('evil.example'), context())).statusCode).toBe(403)
    expect((await handler(asked('mcp.example.com', 'https://other.example'), context())).statusCode).toBe(200)
    expect((await handler(asked('mcp.example.com', 'https://evil.example'), context())).statusCode).toBe(403)
  })

  it('serves any Host without MCP_ALLOWED_HOSTS (a function URL routes by its own name), but options win over the environment', async () => {
    expect((await made({ MCP_ALLOWED_HOSTS: '' }).handler(asked('anything.example'), context())).statusCode).toBe(200)
    const { handler } = made({ MCP_ALLOWED_HOSTS: 'env.example', MCP_ALLOWED_ORIGINS: 'https://env.example' }, { allowedHosts: ['option.example'], allowedOrigins: ['https://option.example'] })
    expect((await handler(asked('env.example'), context())).statusCode).toBe(403)
    expect((await handler(asked('option.example', 'https://env.example'), context())).statusCode).toBe(403)
    expect((await handler(asked('option.example', 'https://option.example'), context())).statusCode).toBe(200)
  })

  it('warns once made without a requestState secret, and not with MCP_REQUEST_STATE_SECRET or the option', () => {
    expect(made({ MCP_REQUEST_STATE_SECRET: '' }).warnings).toEqual([expect.stringMatching(/^mcp-edge: no MCP_REQUEST_STATE_SECRET: /)])
    expect(made({ MCP_REQUEST_STATE_SECRET: 'env-secret-0123456789abcdef0123456789' }).warnings).toEqual([])
    expect(made({ MCP_REQUEST_STATE_SECRET: '' }, { requestState: { secret: 'option-secret-0123456789abcdef01234567' } }).warnings).toEqual([])
  })

  it('warns once made with sessions() unless both the store and the backplane are shared', async () => {
    const secret = { MCP_REQUEST_STATE_SECRET: 'env-secret-0123456789abcdef0123456789' }
    const alone = /^mcp-edge: sessions\(\) without a shared store and backplane: /
    expect(made(secret, { sessions: sessions() }).warnings).toEqual([expect.stringMatching(alone)])
    const prefix = `sessions-warning-${crypto.randomUUID()}:`
    const store = redisTaskStore({ url: REDIS_URL, prefix })
    const backplane = redisBackplane({ url: REDIS_URL, prefix })
    try {
      expect(made(secret, { sessions: sessions(), store }).warnings).toEqual([expect.stringMatching(alone)])
      expect(made(secret, { sessions: sessions(), backplane }).warnings).toEqual([expect.stringMatching(alone)])
      expect(made(secret, { sessions: sessions(), store, backplane }).warnings).toEqual([])
      expect(made(secret, { store: memoryTaskStore(), backplane }).warnings).toEqual([])
    } finally {
      await Promise.all([store.close?.(), backplane.close?.()])
    }
  })

  it('answers 400 with a JSON-RPC error for an event no Request can be made of (a header value with a line break)', async () => {
    const event = httpApiEvent('tools/list')
    const result = await made({}).handler({ ...event, headers: { ...event.headers, 'x-broken': 'a\nb' } }, context())
    expect(result.statusCode).toBe(400)
    expect(JSON.parse(result.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Bad request: /) } })
  })
})
