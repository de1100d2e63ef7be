/**
 * 2025 sessions without affinity: two handlers (two instances) share a store, a backplane and the
 * requestState secret, and any request of a session may go to either. Every message the server sends is
 * checked against the 2025-11-25 schema as the v1 SDK encodes it.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, memoryBackplane, memoryTaskStore, sessions, tasks, type HandlerOptions, type SessionOptions } from '../../src/index.js'
import { createRuntime } from '../../src/core.js'
import { issueSession, openSession } from '../../src/http/session/token.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { deferred, until } from '../helpers/async.js'
import { TEST_SECRET } from '../helpers/server.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

type Message = Record<string, any>

function instances(options: HandlerOptions = {}) {
  const shared = { backplane: memoryBackplane(), store: memoryTaskStore(), requestState: { secret: TEST_SECRET }, sessions: sessions(), ...options }
  const make = () => createFetchHandler(createEverythingServer(), { extensions: [tasks()], ...shared })
  return [make(), make()] as const
}

const ELICIT_AND_SAMPLE = { elicitation: {}, sampling: {} }

async function post(handler: (r: Request) => Promise<Response>, body: unknown, session?: string, platform?: object) {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  if (session) headers['mcp-session-id'] = session
  return (handler as (r: Request, p?: object) => Promise<Response>)(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }), platform)
}

async function initialize(handler: (r: Request) => Promise<Response>, capabilities: object = ELICIT_AND_SAMPLE, platform?: object) {
  const res = await post(handler, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } } }, undefined, platform)
  expect(res.status).toBe(200)
  return res.headers.get('mcp-session-id')!
}

/** The messages of a response (one JSON body or an SSE stream), each checked against the 2025 schema. */
async function* messages(res: Response, method: string): AsyncGenerator<Message> {
  const all = res.headers.get('content-type')?.includes('text/event-stream') ? sseMessages(res.body!) : (async function* () { yield await res.json() })()
  for await (const m of all) {
    expect(validateServerMessage('2025-11-25', method, m)).toEqual([])
    yield m
  }
}

const call = (id: number, name: string, args: object = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })

describe('2025 sessions across instances', () => {
  it('a call on one instance asks the client on its stream; the answer, POSTed to the other, reaches it', async () => {
    const [a, b] = instances()
    const session = await initialize(a)
    const stream = messages(await post(b, call(1, 'test_elicitation', { message: 'Who?' }), session), 'tools/call')
    const asked = (await stream.next()).value as Message
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Who?' } })
    expect(asked.id).toMatch(/^mcp-edge-[\w-]{22}$/)
    const answered = await post(a, { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { username: 'ada', email: 'a@b.c' } } }, session)
    expect(answered.status).toBe(202)
    expect((await stream.next()).value).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"a@b.c"}' }] } })
    expect((await stream.next()).done).toBe(true)
  })

  it("an answer from another session does not count; the client's error fails the call in-band", async () => {
    const [a, b] = instances()
    const session = await initialize(a)
    const stranger = await initialize(b)
    const stream = messages(await post(a, call(1, 'test_sampling', { prompt: 'Hi' }), session), 'tools/call')
    const asked = (await stream.next()).value as Message
    expect((await post(b, { jsonrpc: '2.0', id: asked.id, result: { role: 'assistant', model: 'evil', content: { type: 'text', text: 'forged' } } }, stranger)).status).toBe(202)
    expect((await post(b, { jsonrpc: '2.0', id: asked.id, error: { code: -1, message: 'User rejected sampling request' } }, session)).status).toBe(202)
    const answer = (await stream.next()).value as Message
    expect(answer).toMatchObject({ id: 1, error: { code: -1 } })
    expect(answer.error.message).toContain('User rejected sampling request')
  })

  it('an answer whose publish was lost is found in the store when the backplane resyncs', async () => {
    const fanout = memoryBackplane()
    const lossy = { ...fanout, publish: async (event: { topic: string }) => (event.topic.startsWith('reply:') ? undefined : fanout.publish(event as never)) }
    const [a, b] = instances({ backplane: lossy })
    const session = await initialize(a)
    const stream = messages(await post(a, call(1, 'test_sampling', { prompt: 'Hi' }), session), 'tools/call')
    const asked = (await stream.next()).value as Message
    expect((await post(b, { jsonrpc: '2.0', id: asked.id, result: { role: 'assistant', model: 'm', content: { type: 'text', text: 'kept' } } }, session)).status).toBe(202)
    fanout.resync()
    expect((await stream.next()).value).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'LLM response: kept' }] } })
  })

  it("answers are kept within the client's share of the store: past it, 429", async () => {
    const [a] = instances({ sessions: sessions({ maxPerClient: 1 }) })
    const platform = { clientAddress: '10.0.0.3' }
    const session = await initialize(a, {}, platform)
    const answer = (id: string) => post(a, { jsonrpc: '2.0', id, result: {} }, session, platform)
    expect((await answer('mcp-edge-aaaaaaaaaaaaaaaaaaaaaa')).status).toBe(202)
    const refused = await answer('mcp-edge-bbbbbbbbbbbbbbbbbbbbbb')
    expect(refused.status).toBe(429)
    expect((await refused.json()).error).toMatchObject({ code: -32000 })
  })

  it('a question never answered waits only as long as the handler may run: then the call fails with a reason', async () => {
    const [a] = instances({ handlerTimeoutMs: 100 })
    const session = await initialize(a)
    const stream = messages(await post(a, call(1, 'test_elicitation', { message: 'Who?' }), session), 'tools/call')
    expect((await stream.next()).value).toMatchObject({ method: 'elicitation/create' })
    const answer = (await stream.next()).value as Message
    expect(answer).toMatchObject({ id: 1, error: { code: -32603 } })
    expect(answer.error.message).toMatch(/time limit/)
    expect((await stream.next()).done).toBe(true)
  })

  it('a client that leaves while it is asked: the wait ends, and its backplane subscription with it', async () => {
    const fanout = memoryBackplane()
    const [a] = instances({ backplane: fanout })
    const session = await initialize(a)
    const before = fanout.size
    const controller = new AbortController()
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session }
    const res = await a(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(call(1, 'test_sampling', { prompt: 'Hi' })), signal: controller.signal }))
    expect((await messages(res, 'tools/call').next()).value).toMatchObject({ method: 'sampling/createMessage' })
    expect(fanout.size).toBe(before + 1)
    controller.abort()
    await until(() => fanout.size === before, 2000, 'the subscription closed')
  })

  it('a handler that asks once the client has left is refused at once, and holds no subscription', async () => {
    const fanout = memoryBackplane()
    const refused = deferred<string>()
    const server = new McpServer({ name: 'late', version: '1.0.0' }).tool('late_ask', {}, async (_a, ctx) => {
      ctx.progress(0, 1)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      return ctx.elicit('k', { message: 'Too late?', requestedSchema: { type: 'object', properties: {} } }).then(() => 'answered', (e: Error) => void refused.resolve(e.message))
    })
    const handler = createFetchHandler(server, { backplane: fanout, requestState: { secret: TEST_SECRET }, sessions: sessions() })
    const session = await initialize(handler)
    const before = fanout.size
    const controller = new AbortController()
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session }
    const res = await handler(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify({ ...call(1, 'late_ask'), params: { name: 'late_ask', arguments: {}, _meta: { progressToken: 'p' } } }), signal: controller.signal }))
    await messages(res, 'tools/call').next()
    controller.abort()
    expect(await refused.promise).toBe('The request ended before the client answered')
    await until(() => fanout.size === before, 2000, 'no subscription left')
  })

  it('routes only answers to its own ids (mcp-edge-, at most 64 characters); others are refused as before', async () => {
    const [a] = instances()
    const session = await initialize(a)
    for (const id of ['other-1', `mcp-edge-${'x'.repeat(60)}`, 7]) {
      const res = await post(a, { jsonrpc: '2.0', id, result: {} }, session)
      expect(res.status).toBe(400)
      expect((await res.json()).error.message).toBe('The server accepts no responses')
    }
  })

  it('behind whole responses (a buffered platform), a session cannot be asked: the call fails at once, saying why', async () => {
    const [a] = instances()
    const platform = { buffered: true }
    const session = await initialize(a, ELICIT_AND_SAMPLE, platform)
    const res = await post(a, call(1, 'test_sampling', { prompt: 'Hi' }), session, platform)
    expect((await res.json()).error).toEqual({ code: -32603, message: 'This request needs input from the client, and this endpoint delivers responses whole: serve it where responses stream' })
  })

  it('an answer that is not a valid result of what was asked fails the call', async () => {
    const [a] = instances()
    const session = await initialize(a)
    const stream = messages(await post(a, call(1, 'test_sampling', { prompt: 'Hi' }), session), 'tools/call')
    const asked = (await stream.next()).value as Message
    await post(a, { jsonrpc: '2.0', id: asked.id, result: { action: 'accept' } }, session)
    expect((await stream.next()).value).toMatchObject({ id: 1, error: { code: -32603, message: "The client's answer to sampling/createMessage is not a valid result" } })
  })

  it('a client that did not declare the capability is not asked: -32021 in-band; without a session, the tool says why', async () => {
    const [a] = instances()
    const session = await initialize(a, {})
    const refused = await post(a, call(1, 'test_elicitation', { message: 'Who?' }), session)
    expect(refused.status).toBe(200)
    expect((await refused.json()).error).toEqual({
      code: -32021, message: 'The client did not declare the capability this request needs (elicitation/create)', data: { requiredCapabilities: { elicitation: { form: {} } } },
    })
    const sessionless = await (await post(a, call(2, 'test_elicitation', { message: 'Who?' }))).json()
    expect(sessionless.result).toMatchObject({ isError: true })
    expect(sessionless.result.content[0].text).toContain('a 2025 session (initialize over HTTP)')
  })

  it('the log level set on one instance holds on the other', async () => {
    const [a, b] = instances()
    const session = await initialize(a)
    expect(await (await post(a, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, session)).json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    const logged = []
    for await (const m of messages(await post(b, call(2, 'test_tool_with_logging'), session), 'tools/call')) logged.push(m)
    expect(logged.map((m) => m.params?.data ?? 'result')).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed', 'result'])
    await post(b, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'warning' } }, session)
    expect((await (await post(a, call(4, 'test_tool_with_logging'), session)).json()).result).toBeDefined()
  })

  it('resources/subscribe and unsubscribe are kept per session, within its limits', async () => {
    const [a, b] = instances({ sessions: sessions({ maxSubscriptions: 2 }) })
    const session = await initialize(a)
    const sub = (id: number, uri: string, on = true, s: string | undefined = session) =>
      post(b, { jsonrpc: '2.0', id, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, s).then((r) => r.json())
    expect(await sub(1, 'test://watched-resource')).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    expect(await sub(2, 'test://static-text')).toMatchObject({ result: {} })
    expect((await sub(3, 'test://template/1/data')).error).toMatchObject({ code: -32602, message: 'Refused: a session subscribes to at most 2 resources' })
    expect(await sub(4, 'test://static-text', false)).toMatchObject({ result: {} })
    expect(await sub(5, 'test://template/1/data')).toMatchObject({ result: {} })
    expect((await sub(6, 'test://nothing-here')).error).toMatchObject({ code: -32602, message: 'Resource not found: test://nothing-here' })
    expect((await sub(7, 'test://watched-resource', true, '')).error).toEqual({ code: -32600, message: 'resources/subscribe needs the session that initialize begins (over HTTP, its Mcp-Session-Id)' })
    expect((await sub(8, `test://template/${'x'.repeat(70_000)}/data`, true, await initialize(a))).error).toEqual({ code: -32602, message: "Refused: a session's subscriptions name at most 65536 characters of URIs" })
    const level = await post(b, { jsonrpc: '2.0', id: 9, method: 'logging/setLevel', params: { level: 'loud' } }, session)
    expect((await level.json()).error).toEqual({ code: -32602, message: 'level must be one of debug, info, notice, warning, error, critical, alert, emergency' })
  })

  it('DELETE on one instance ends the session on both: 404 with -32001 from then on', async () => {
    const [a, b] = instances()
    const session = await initialize(a)
    const end = (h: typeof a) => h(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } }))
    expect((await end(b)).status).toBe(204)
    for (const h of [a, b]) {
      const res = await post(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, session)
      expect(res.status).toBe(404)
      expect((await res.json()).error).toMatchObject({ code: -32001 })
    }
    expect((await end(a)).status).toBe(404)
  })

  it('an expired session, or one another server sealed, is unknown (404)', async () => {
    const [a] = instances({ sessions: sessions({ ttlMs: 1 }) })
    const session = await initialize(a)
    await new Promise((r) => setTimeout(r, 5))
    expect((await post(a, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, session)).status).toBe(404)
    const other = createFetchHandler(createEverythingServer({ name: 'another' }), { extensions: [tasks()], requestState: { secret: TEST_SECRET }, sessions: sessions() })
    expect((await post(other, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, await initialize(instances()[0]))).status).toBe(404)
  })

  it("a client's sessions with something to remember are bounded: past its share, 429", async () => {
    const [a] = instances({ sessions: sessions({ maxPerClient: 1 }) })
    const platform = { clientAddress: '10.0.0.1' }
    const level = (s: string) => post(a, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, s, platform)
    expect((await level(await initialize(a, {}, platform))).status).toBe(200)
    const refused = await level(await initialize(a, {}, platform))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('10')
  })

  it('past the total of every client: 503, for kept answers and for sessions that remember something', async () => {
    const [a] = instances({ sessions: sessions({ maxTotal: 1 }) })
    const one = { clientAddress: '10.0.1.1' }
    const two = { clientAddress: '10.0.1.2' }
    const s1 = await initialize(a, {}, one)
    expect((await post(a, { jsonrpc: '2.0', id: 'mcp-edge-aaaaaaaaaaaaaaaaaaaaaa', result: {} }, s1, one)).status).toBe(202)
    const s2 = await initialize(a, {}, two)
    const answer = await post(a, { jsonrpc: '2.0', id: 'mcp-edge-bbbbbbbbbbbbbbbbbbbbbb', result: {} }, s2, two)
    expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '10'])
    const level = await post(a, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, s2, two)
    expect(level.status).toBe(503)
  })

  it('what initialize declared must fit in the id: 400 -32602 past 2,048 characters', async () => {
    const [a] = instances()
    const res = await post(a, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { sampling: { pad: 'x'.repeat(3000) } }, clientInfo: { name: 'c', version: '1' } } })
    expect(res.status).toBe(400)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect((await res.json()).error).toEqual({ code: -32602, message: 'capabilities and clientInfo take more than 2048 characters of JSON' })
  })

  it('refuses options that are not positive integers, at start-up', () => {
    const make = (options: SessionOptions) => () => sessions(options)
    expect(make({ ttlMs: 0 })).toThrow('sessions.ttlMs must be a positive integer (ms)')
    expect(make({ maxPerClient: 1.5 })).toThrow('sessions.maxPerClient must be a positive integer')
    expect(make({ maxTotal: -1 })).toThrow('sessions.maxTotal must be a positive integer')
    expect(make({ maxSubscriptions: Number.NaN })).toThrow('sessions.maxSubscriptions must be a positive integer')
    // The options object of 0.1 in place of sessions(), from JavaScript: said by name, not a TypeError of ours.
    const server = new McpServer({ name: 'old', version: '1' })
    expect(() => createFetchHandler(server, { sessions: { ttlMs: 60_000 } as never })).toThrow('The sessions option takes sessions({...}) from mcp-edge, which turns 2025 sessions on')
    expect(() => createFetchHandler(server, { sessions: false as never })).not.toThrow()
  })

  it('without sessions(), initialize issues none and DELETE is not allowed', async () => {
    const [a] = instances({ sessions: undefined })
    const res = await post(a, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect((await a(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': 'x' } }))).status).toBe(405)
    expect((await (await post(a, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'test://watched-resource' } })).json()).error).toMatchObject({ code: -32601 })
  })
})

describe('2025 sessions when the store or backplane fails', () => {
  /** The memory store, failing while `down` is set: what Redis going away looks like to the handler. */
  function failing() {
    const store = memoryTaskStore()
    const state = { down: false }
    const gate = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) => (state.down ? Promise.reject(new Error('store unavailable')) : f(...a))
    return { state, store: { ...store, get: gate(store.get.bind(store)), put: gate(store.put.bind(store)), create: gate(store.create.bind(store)) } }
  }

  it('a session the store cannot read: 503 with Retry-After, the error reported, never a 500; then served again', async () => {
    const { state, store } = failing()
    const reported: unknown[] = []
    const [a] = instances({ store, onError: (_e, c) => void reported.push(c.during) })
    const session = await initialize(a)
    state.down = true
    for (const res of [
      await post(a, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, session),
      await post(a, { jsonrpc: '2.0', id: 'mcp-edge-aaaaaaaaaaaaaaaaaaaaaa', result: {} }, session),
      await a(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } })),
      await a(new Request('http://127.0.0.1/mcp', { headers: { 'mcp-session-id': session } })),
    ]) {
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('1')
      expect((await res.json()).error).toMatchObject({ code: -32000, message: expect.stringMatching(/^Sessions are unavailable for a moment \(error id \w+\): try again$/) })
    }
    expect(reported).toEqual(['session', 'session', 'session', 'session'])
    state.down = false
    expect((await post(a, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)).status).toBe(200)
  })

  it('a store that fails on the write, after the lookup read it: the request fails in-band with an error id', async () => {
    const { store } = failing()
    const [a] = instances({ store, onError: () => {} })
    const session = await initialize(a)
    // A record exists (so the change is a put), then the store refuses the write.
    await post(a, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, session)
    store.put = () => Promise.reject(new Error('store unavailable'))
    const level = await (await post(a, { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } }, session)).json()
    expect(level.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^Internal error \(error id \w+\)$/) })
  })

  it('a publish that fails loses nothing: the subscribe, the answer and DELETE are done, the failure reported', async () => {
    const fanout = memoryBackplane()
    const reported: unknown[] = []
    const broken = { ...fanout, publish: async () => Promise.reject(new Error('backplane down')) }
    const [a] = instances({ backplane: broken, onError: (e, c) => void reported.push(c.during) })
    const session = await initialize(a)
    expect(await (await post(a, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'test://watched-resource' } }, session)).json()).toMatchObject({ result: {} })
    expect((await post(a, { jsonrpc: '2.0', id: 'mcp-edge-aaaaaaaaaaaaaaaaaaaaaa', result: {} }, session)).status).toBe(202)
    expect((await a(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } }))).status).toBe(204)
    expect((await post(a, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)).status).toBe(404)
    expect(reported).toEqual(['publish', 'publish', 'publish'])
  })

  it("a failing requestState secret at initialize is the server's fault: -32603 with an error id, no session, reported", async () => {
    const reported: unknown[] = []
    const handler = createFetchHandler(createEverythingServer(), { extensions: [tasks()], sessions: sessions(), requestState: { secret: () => Promise.reject(new Error('secret store down')) }, onError: (_e, c) => void reported.push(c) })
    const res = await post(handler, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect((await res.json()).error).toMatchObject({ code: -32603, message: expect.stringMatching(/^Internal error \(error id \w+\)$/) })
    expect(reported).toMatchObject([{ method: 'initialize', requestId: 0, during: 'session' }])
  })
})

describe("a 2025 session's GET stream", () => {
  const get = (handler: (r: Request, p?: object) => Promise<Response>, session: string, platform?: object) =>
    handler(new Request('http://127.0.0.1/mcp', { headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } }), platform)
  const subscribe = (handler: (r: Request) => Promise<Response>, session: string, uri: string, on = true) =>
    post(handler, { jsonrpc: '2.0', id: 1, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, session).then((r) => r.json())

  it('carries updates of the resources the session subscribes to, and list changes, made on any instance', async () => {
    const [a, b] = instances()
    const session = await initialize(a)
    // Subscribed before the stream opens: read from the store when it does.
    await subscribe(b, session, 'test://watched-resource')
    const res = await get(a, session)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const stream = messages(res, 'GET')
    await new Promise((r) => setTimeout(r, 10))
    await b.notify.resourceUpdated('test://static-text')
    await b.notify.resourceUpdated('test://watched-resource')
    expect((await stream.next()).value).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } })
    // Subscribed while it is open, on the other instance; the first URI dropped.
    await subscribe(b, session, 'test://static-text')
    await subscribe(b, session, 'test://watched-resource', false)
    await b.notify.resourceUpdated('test://watched-resource')
    await b.notify.toolsChanged()
    await a.notify.resourceUpdated('test://static-text')
    expect((await stream.next()).value).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
    expect((await stream.next()).value).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://static-text' } })
    // DELETE on the other instance ends the session, and its stream.
    await b(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } }))
    expect((await stream.next()).done).toBe(true)
  })

  it('counts among the client\'s listen streams: past its share, 429; an unknown session, 404', async () => {
    const [a] = instances({ listen: { maxStreamsPerClient: 1 } })
    const platform = { clientAddress: '10.0.0.2' }
    const session = await initialize(a, {}, platform)
    const first = await get(a, session, platform)
    expect(first.status).toBe(200)
    const second = await get(a, session, platform)
    expect(second.status).toBe(429)
    expect((await second.json()).error).toMatchObject({ code: -32000, message: expect.stringContaining('listen streams open') })
    await first.body!.cancel()
    await new Promise((r) => setTimeout(r, 10))
    const third = await get(a, session, platform)
    expect(third.status).toBe(200)
    await third.body!.cancel()
    expect((await get(a, 'not-a-session')).status).toBe(404)
  })

  it("a session's changes reach its own streams, not another session's", async () => {
    const [a, b] = instances()
    const mine = await initialize(a)
    const theirs = await initialize(a)
    const own = messages(await get(b, mine), 'GET')
    const other = messages(await get(b, theirs), 'GET')
    await new Promise((r) => setTimeout(r, 10))
    await subscribe(a, mine, 'test://watched-resource')
    await a.notify.resourceUpdated('test://watched-resource')
    await a.notify.promptsChanged()
    expect((await own.next()).value).toMatchObject({ method: 'notifications/resources/updated' })
    expect((await other.next()).value).toMatchObject({ method: 'notifications/prompts/list_changed' })
  })

  it('after a possible gap (a resync), cues a refetch of every list and every resource it follows', async () => {
    const fanout = memoryBackplane()
    const [a] = instances({ backplane: fanout })
    const session = await initialize(a)
    await subscribe(a, session, 'test://watched-resource')
    await subscribe(a, session, 'test://static-text')
    const stream = messages(await get(a, session), 'GET')
    await new Promise((r) => setTimeout(r, 10))
    fanout.resync()
    const cued = []
    for (let i = 0; i < 5; i++) cued.push((await stream.next()).value)
    expect(cued.map((m) => m!.params?.uri ?? m!.method).sort()).toEqual([
      'notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/tools/list_changed', 'test://static-text', 'test://watched-resource',
    ])
  })

  it('ends, reported, when the backplane will not subscribe it; and frees its place when the client leaves', async () => {
    const fanout = memoryBackplane()
    const reported: unknown[] = []
    let refuse = false
    const backplane = { ...fanout, subscribe: (t: readonly string[], l: Parameters<typeof fanout.subscribe>[1]) => (refuse ? Promise.reject(new Error('backplane down')) : fanout.subscribe(t, l)) }
    const [a] = instances({ backplane, listen: { maxStreamsPerClient: 1 }, onError: (_e, c) => void reported.push(c.during) })
    const platform = { clientAddress: '10.0.2.1' }
    const session = await initialize(a, {}, platform)
    refuse = true
    const failed = messages(await get(a, session, platform), 'GET')
    expect((await failed.next()).done).toBe(true)
    expect(reported).toEqual(['session stream'])
    refuse = false
    const before = fanout.size
    const open = await get(a, session, platform)
    expect(open.status).toBe(200)
    await until(() => fanout.size > before, 2000, 'subscribed')
    await open.body!.cancel()
    await until(() => fanout.size === before, 2000, 'unsubscribed')
    expect((await get(a, session, platform)).status).toBe(200)
  })

  it("ends at its lifetime, or the platform's deadline if that comes first", async () => {
    const [a] = instances({ listen: { maxLifetimeMs: 60_000 } })
    const session = await initialize(a)
    const started = Date.now()
    const stream = messages(await get(a, session, { deadline: Date.now() + 100 }), 'GET')
    expect((await stream.next()).done).toBe(true)
    expect(Date.now() - started).toBeLessThan(30_000)
  })

  it('is refused with 503 when the server holds its most streams, and counted no more once it ends', async () => {
    const [a] = instances({ listen: { maxStreams: 1 } })
    const session = await initialize(a)
    const first = await get(a, session)
    const second = await get(a, session)
    expect([second.status, second.headers.get('retry-after')]).toEqual([503, '10'])
    await first.body!.cancel()
    await new Promise((r) => setTimeout(r, 10))
    const third = await get(a, session)
    expect(third.status).toBe(200)
    await third.body!.cancel()
  })

  it('follows what its session changed while the stream was being subscribed, which no event told it', async () => {
    const fanout = memoryBackplane()
    const gates: (() => void)[] = []
    // The stream's own subscription completes only when released, and hears nothing before.
    const late = { ...fanout, subscribe: async (topics: readonly string[], listener: Parameters<typeof fanout.subscribe>[1]) => {
      if (topics.some((t) => t.startsWith('session:'))) await new Promise<void>((resolve) => gates.push(resolve))
      return fanout.subscribe(topics, listener)
    } }
    const [a] = instances({ backplane: late })
    const session = await initialize(a)
    const stream = messages(await get(a, session), 'GET')
    await until(() => gates.length === 1, 2000, 'the stream subscribing')
    await subscribe(a, session, 'test://watched-resource')
    gates.shift()!()
    await new Promise((r) => setTimeout(r, 20))
    await a.notify.resourceUpdated('test://watched-resource')
    expect((await stream.next()).value).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } })
    // Ended meanwhile: the next stream ends as soon as it has subscribed.
    const ending = messages(await get(a, session), 'GET')
    await until(() => gates.length === 1, 2000, 'the second stream subscribing')
    await a(new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } }))
    gates.shift()!()
    expect((await ending.next()).done).toBe(true)
  })

  it('ends at shutdown', async () => {
    const [a] = instances()
    const session = await initialize(a)
    const stream = messages(await get(a, session), 'GET')
    const next = stream.next()
    await a.close()
    expect((await next).done).toBe(true)
  })
})

describe('session ids', () => {
  it('are bound to the principal they were issued to, and carry only the capabilities asked about', async () => {
    const runtime = createRuntime(createEverythingServer(), { extensions: [tasks()], requestState: { secret: TEST_SECRET } })
    const id = await issueSession(runtime, { capabilities: { sampling: {}, experimental: { big: 'x'.repeat(5000) } }, clientInfo: { name: 'c', version: '1' } }, 'alice', 60_000, undefined)
    expect(await openSession(runtime, id, 'bob')).toBeUndefined()
    expect(await openSession(runtime, id, undefined)).toBeUndefined()
    const opened = await openSession(runtime, id, 'alice')
    expect(opened).toMatchObject({ principal: 'alice', client: { capabilities: { sampling: {} }, info: { name: 'c', version: '1' } } })
    expect(opened!.key).toMatch(/^[\w-]{22}$/)
    expect(opened!.expiresAt).toBeGreaterThan(Date.now() + 59_000)
    // A requestState of this server is not a session, whatever its fields.
    const state = await runtime.requestState.seal({ n: 'mcp-edge-everything', m: 'tools/call', d: 'k', x: Date.now() + 60_000, a: { capabilities: {} }, s: {}, p: 'alice' })
    expect(await openSession(runtime, state, 'alice')).toBeUndefined()
  })
})
