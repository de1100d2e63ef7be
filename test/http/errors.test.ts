/**
 * Errors: what the client sees of a failure, and what the server's onError hook is told. An unexpected
 * exception's message never leaves the server; the client gets an error id that finds it in the log.
 */
import { describe, expect, it } from 'vitest'
import { type Backplane, bearerAuth, createFetchHandler, type ErrorContext, type HandlerOptions, McpServer, ToolError } from '../../src/index.js'
import { readBody } from '../../src/http/body.js'
import { deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'

function recorded(options: HandlerOptions = {}) {
  const errors: { error: unknown; context: ErrorContext }[] = []
  const onError = (error: unknown, context: ErrorContext) => void errors.push({ error, context })
  return { errors, options: { ...options, onError } }
}

const SECRET = 'connect postgres://admin:hunter2@db failed'
const idIn = (text: string) => /\(error id ([0-9a-f]{8})\)/.exec(text)?.[1]

describe('onError and what the client sees', () => {
  const failing = () => new McpServer({ name: 'errors', version: '1.0.0' })
    .tool('crash', { description: 'fails unexpectedly' }, () => {
      throw new Error(SECRET)
    })
    .tool('refuse', { description: 'fails on purpose' }, () => {
      throw new ToolError('That city does not exist')
    })
    .prompt('crash', { description: 'fails unexpectedly' }, () => {
      throw new Error(SECRET)
    })
    .resource('test://crash', { name: 'crash' }, () => {
      throw new Error(SECRET)
    })

  it('a tool that throws unexpectedly: a generic isError result whose error id is the one onError was told, once', async () => {
    const { errors, options } = recorded()
    const { body } = await rpc(createFetchHandler(failing(), options), 'tools/call', { name: 'crash', _meta: META_2026() }, { id: 41 })
    const text: string = body.result.content[0].text
    expect(body.result.isError).toBe(true)
    expect(text).not.toContain('hunter2')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.error).toMatchObject({ message: SECRET })
    expect(errors[0]!.context).toEqual({ errorId: idIn(text), method: 'tools/call', tool: 'crash', requestId: 41 })
  })

  it('a ToolError reaches the model with its message, and is no error of the server', async () => {
    const { errors, options } = recorded()
    const { body } = await rpc(createFetchHandler(failing(), options), 'tools/call', { name: 'refuse', _meta: META_2026() })
    expect(body.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'That city does not exist' }] })
    expect(errors).toEqual([])
  })

  it.each([
    ['prompts/get', { name: 'crash' }],
    ['resources/read', { uri: 'test://crash' }],
  ])('%s that throws unexpectedly: -32603 with the error id, never the message', async (method, params) => {
    const { errors, options } = recorded()
    const { status, body } = await rpc(createFetchHandler(failing(), options), method, { ...params, _meta: META_2026() }, { id: 'r' })
    expect(status).toBe(200)
    expect(body.error.code).toBe(-32603)
    expect(body.error.message).not.toContain('hunter2')
    expect(errors.map((e) => e.context)).toEqual([{ errorId: idIn(body.error.message), method, requestId: 'r' }])
  })

  it('a token verifier that throws: 503 with an error id and Retry-After, reported as during authorization, the handler never run', async () => {
    let ran = false
    const server = new McpServer({ name: 'p', version: '1.0.0' }).tool('t', { description: 't' }, () => {
      ran = true
      return 't'
    })
    const { errors, options } = recorded({ auth: bearerAuth(namedUsers({ verify: () => Promise.reject(new Error(SECRET)) })) })
    const params = { name: 't', arguments: {}, _meta: META_2026() }
    const { status, body, headers } = await rpc(createFetchHandler(server, options), 'tools/call', params, { headers: { ...modernHeaders('tools/call', params), ...as('alice') } })
    expect(status).toBe(503)
    expect(headers.get('retry-after')).toBe('5')
    expect(body).toEqual({ error: 'temporarily_unavailable', error_description: `Tokens cannot be checked right now (error id ${errors[0]!.context.errorId})` })
    expect(errors.map((e) => [(e.error as Error).message, e.context.during])).toEqual([[SECRET, 'authorization']])
    expect(ran).toBe(false)
  })

  it('an onError that throws changes nothing for the client', async () => {
    const handler = createFetchHandler(failing(), { onError: () => { throw new Error('the logger is down') } })
    const { body } = await rpc(handler, 'tools/call', { name: 'crash', _meta: META_2026() })
    expect(body.result.isError).toBe(true)
  })

  it('a failed waitUntil promise is reported, with the request it came from', async () => {
    const { errors, options } = recorded()
    const failed = deferred()
    const server = new McpServer({ name: 'later', version: '1.0.0' }).tool('later', { description: 'l' }, (_a, ctx) => {
      ctx.waitUntil(failed.promise.then(() => { throw new Error('cleanup failed') }))
      return 'done'
    })
    const { body } = await rpc(createFetchHandler(server, options), 'tools/call', { name: 'later', _meta: META_2026() }, { id: 3 })
    expect(body.result.content[0].text).toBe('done')
    failed.resolve()
    await expect.poll(() => errors.length).toBe(1)
    expect(errors[0]!.context).toMatchObject({ method: 'tools/call', requestId: 3, during: 'waitUntil' })
  })

  it('a publish that fails is reported, and notify resolves false rather than rejecting', async () => {
    const { errors, options } = recorded()
    const down: Backplane = {
      publish: async () => { throw new Error('broker down') },
      subscribe: async () => ({ close: async () => {} }),
    }
    const handler = createFetchHandler(new McpServer({ name: 'p', version: '1.0.0' }), { ...options, backplane: down })
    await expect(handler.notify.toolsChanged()).resolves.toBe(false)
    await expect(createFetchHandler(new McpServer({ name: 'p', version: '1.0.0' })).notify.toolsChanged()).resolves.toBe(true)
    expect(errors.map((e) => [(e.error as Error).message, e.context.during])).toEqual([['broker down', 'publish']])
  })
})

describe('bodies and arguments the server refuses before any handler runs', () => {
  let runs = 0
  const server = new McpServer({ name: 'bodies', version: '1.0.0' }).tool('echo', { description: 'e' }, (args) => {
    runs++
    return JSON.stringify(args).slice(0, 20)
  })
  const handler = createFetchHandler(server, { maxBodyBytes: 1000 })
  const post = (body: BodyInit, headers: Record<string, string> = {}) => handler(new Request('http://127.0.0.1/mcp', {
    method: 'POST', headers: { ...modernHeaders('tools/call', { name: 'echo' }), ...headers }, body,
  }))
  const message = (args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: args, _meta: META_2026() } })

  it('a body that is not UTF-8: -32700 with HTTP 400, not a replacement character served', async () => {
    const bytes = new TextEncoder().encode(message({ s: 'AB' }))
    const at = bytes.indexOf(0x41) // the A: made into a lone continuation byte
    bytes[at] = 0x80
    const res = await post(bytes)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid UTF-8' } })
  })

  it('a POST without a body is a parse error, read as empty text', async () => {
    expect(await readBody(new Request('http://127.0.0.1/mcp', { method: 'POST' }), { maxBytes: 100 })).toBe('')
    const res = await createFetchHandler(new McpServer({ name: 'b', version: '1.0.0' }))(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' } }))
    expect(res.status).toBe(400)
    expect((await res.json()).error.code).toBe(-32700)
  })

  it('a UTF-8 byte order mark is allowed', async () => {
    const res = await post(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(message({}))]))
    expect(res.status).toBe(200)
  })

  it('counts the bytes it reads, not the Content-Length it is told', async () => {
    const before = runs
    const res = await post(message({ pad: 'x'.repeat(2000) }), { 'content-length': '100' })
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe(-32600)
    expect(runs).toBe(before)
  })

  it('arguments nested deeper than 64 levels: -32602 with HTTP 400, and the handler never runs', async () => {
    const before = runs
    // As text: JSON.stringify of 10,000 levels would overflow the test's own stack.
    const nest = (depth: number) => message('ARGS').replace('"ARGS"', `${'{"v":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`)
    // params (1) > arguments, the first of 63 nested { v } (2 to 64): 64 levels in all, still served.
    const ok = await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', { name: 'echo' }), body: nest(63) }))
    expect(ok.status).toBe(200)
    const deep = createFetchHandler(server)
    for (const depth of [64, 10_000]) {
      const res = await deep(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', { name: 'echo' }), body: nest(depth) }))
      expect(res.status).toBe(400)
      expect((await res.json()).error).toEqual({ code: -32602, message: 'params nest deeper than 64 levels' })
    }
    expect(runs).toBe(before + 1)
  })

  it('counts arrays as levels too', async () => {
    const arrays = (depth: number) => message('ARGS').replace('"ARGS"', `{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}`)
    const send = (body: string) => createFetchHandler(server)(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: modernHeaders('tools/call', { name: 'echo' }), body }))
    // params (1) > arguments (2) > 62 nested arrays (3 to 64)
    expect((await send(arrays(62))).status).toBe(200)
    expect((await send(arrays(63))).status).toBe(400)
  })
})

describe('Content-Type', () => {
  const handler = createFetchHandler(new McpServer({ name: 'types', version: '1.0.0' }).tool('t', { description: 't' }, () => 't'))
  const post = (type: string) => {
    const params = { _meta: META_2026() }
    return handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: { ...modernHeaders('tools/list'), 'content-type': type },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }),
    }))
  }

  it('takes application/json with parameters and in any case, and nothing else (415)', async () => {
    for (const ok of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;x=y']) {
      expect([ok, (await post(ok)).status]).toEqual([ok, 200])
    }
    for (const no of ['text/plain', 'application/jsonx', 'application/json-seq', 'json']) {
      const res = await post(no)
      expect([no, res.status, (await res.json()).error.message]).toEqual([no, 415, 'Content-Type must be application/json'])
    }
  })
})
