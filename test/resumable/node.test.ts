/**
 * Resumable requests (the seed draft's proposal, src/resumable/) through the fetch handler: a client that
 * declares `resumableRequests` leaves after the policy and a first progress report, asks for the status,
 * and resumes on another instance sharing the store. Every message is checked against the seed's schema.
 */
import { describe, expect, it } from 'vitest'
import { type Backplane, bearerAuth, createFetchHandler, type FetchHandler, type HandlerOptions, McpError, McpServer, memoryBackplane, memoryTaskStore, resumable, tasks } from '../../src/index.js'
import { deferred, type Deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { SEED_META } from '../helpers/tasks.js'
import { META_2026, modernHeaders, TEST_SECRET } from '../helpers/server.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

const RESUMABLE = { resumableRequests: {} }
type Message = Record<string, any>

/** `slow` reports progress once per gate, as each opens; `forever` waits for its abort; `ask` asks for a name. */
function server(gates: Deferred[], aborted?: Deferred) {
  return new McpServer({ name: 'resumable', version: '1.0.0' })
    .tool('slow', {}, async (_args, ctx) => {
      for (const [i, gate] of gates.entries()) {
        await gate.promise
        ctx.progress(i + 1, gates.length, `step ${i + 1}`)
      }
      return 'done'
    })
    .tool('forever', {}, async (_args, ctx) => {
      ctx.progress(1)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      aborted?.resolve()
      return 'aborted'
    })
    .tool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject}`)
    .tool('where', {}, (_args, ctx) => `${(ctx.env as { region?: string } | undefined)?.region}`)
    .tool('quiet', {}, async (_args, ctx) => {
      ctx.progress(1)
      await gates[0]?.promise
      return 'quiet'
    })
    .tool('fails', {}, () => {
      throw new McpError(-32042, 'no such thing')
    })
    .tool('job', { task: 'optional' }, () => 'job done')
    .tool('must', { task: 'required' }, () => 'must done')
    .tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit('name', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      return `Hello, ${String(answer.content?.name)}`
    })
    // Its requestState keeps a string under `r`, where a resume token keeps its record: a token's shape, not its purpose.
    .tool('recall', {}, async (_args, ctx) => {
      const record = await ctx.memo('r', () => 'a record of its own')
      const answer = await ctx.elicit('name', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      return `${record}: ${String(answer.content?.name)}`
    })
}

interface Sent { res: Response; method: string }

interface PostOptions { capabilities?: Record<string, unknown>; meta?: Record<string, unknown>; user?: string; headers?: Record<string, string>; env?: unknown; address?: string }

async function post(handler: FetchHandler, id: number | string, method: string, params: Record<string, unknown>, options: PostOptions = {}): Promise<Sent> {
  const body = { ...params, _meta: META_2026(options.capabilities ?? { ...RESUMABLE, elicitation: {} }, options.meta) }
  const headers = { ...modernHeaders(method, body), ...(options.user ? as(options.user) : {}), ...options.headers }
  const res = await handler(new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }) }), { env: options.env, clientAddress: options.address })
  return { res, method }
}

/** The messages of an SSE answer until `enough` holds (then the client leaves), each schema-checked. */
async function read({ res, method }: Sent, enough: (messages: Message[]) => boolean): Promise<Message[]> {
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const messages: Message[] = []
  for await (const message of sseMessages(res.body!)) {
    expect(validateServerMessage('2026-07-28', method, message)).toEqual([])
    messages.push(message)
    if (enough(messages)) break
  }
  return messages
}

/** A JSON answer, schema-checked. */
async function json({ res, method }: Sent): Promise<Message> {
  const message = await res.json() as Message
  expect(validateServerMessage('2026-07-28', method, message)).toEqual([])
  return message
}

const hasResult = (m: Message[]) => m.some((x) => 'result' in x || 'error' in x)
const options = (store = memoryTaskStore(), more: Partial<HandlerOptions> = {}): HandlerOptions =>
  ({ extensions: [tasks({ store }), resumable({ store, maxWaitMs: 5_000 })], requestState: { secret: TEST_SECRET }, ...more })

describe('resumable requests', () => {
  it('fails a request whose kept messages would pass maxRecordBytes, saying so, rather than lose some', async () => {
    const chatty = new McpServer({ name: 'chatty', version: '1' }).tool('chatty', {}, async (_args, ctx) => {
      for (let i = 1; i <= 50; i++) ctx.progress(i, 50, 'x'.repeat(100))
      return 'said it all'
    })
    const handler = createFetchHandler(chatty, { extensions: [resumable({ maxRecordBytes: 3000 })], requestState: { secret: TEST_SECRET } })
    const messages = await read(await post(handler, 1, 'tools/call', { name: 'chatty', arguments: {} }, { meta: { progressToken: 'p' } }), hasResult)
    expect(messages.at(-1)!.error).toEqual({ code: -32603, message: expect.stringMatching(/^Its messages are too large to keep: \d+ characters of JSON, at most 3000$/) })
    // What came before the refusal came in order, and nothing past the bound.
    const reports = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)
    expect(reports).toEqual(reports.map((_, i) => i + 1))
    expect(reports.length).toBeLessThan(30)
    await handler.close()
  })

  it('keeps at most maxPerClient requests of one anonymous client (by address), refusing the next with 429 before any stream', async () => {
    const aborted = deferred()
    const store = memoryTaskStore()
    const handler = createFetchHandler(server([], aborted), { ...options(store), extensions: [tasks({ store }), resumable({ store, maxPerClient: 1, maxWaitMs: 5_000 })] })
    const first = await read(await post(handler, 1, 'tools/call', { name: 'forever', arguments: {} }, { address: '192.0.2.1' }), (m) => m.length === 1)
    expect(first[0]).toMatchObject({ method: 'notifications/requests/resumePolicy' })
    const refused = await post(handler, 2, 'tools/call', { name: 'forever', arguments: {} }, { address: '192.0.2.1' })
    expect([refused.res.status, refused.res.headers.get('retry-after')]).toEqual([429, '30'])
    expect((await json(refused)).error).toMatchObject({ code: -32000, message: 'This client has 1 records kept, its most: let one end or expire' })
    const other = await read(await post(handler, 3, 'tools/call', { name: 'forever', arguments: {} }, { address: '192.0.2.2' }), (m) => m.length === 1)
    expect(other[0]).toMatchObject({ method: 'notifications/requests/resumePolicy' })
    expect(store.size).toBe(2)
    await handler.close()
  })

  // The store keeps the log beside the record (TaskStore.append), or one without append has it in the record.
  const stores = [['log beside the record', () => memoryTaskStore()], ['log in the record', () => {
    const { append: _append, messages: _messages, ...store } = memoryTaskStore()
    return store
  }]] as const
  it.for(stores)('leaving after the policy suspends the call; getStatus and resume on another instance replay what was missed (%s)', async ([, made]) => {
    const gates = [deferred(), deferred(), deferred()]
    const store = made()
    const a = createFetchHandler(server(gates), options(store))
    const b = createFetchHandler(server(gates), options(store))

    gates[0]!.resolve()
    const seen = await read(await post(a, 7, 'tools/call', { name: 'slow', arguments: {} }, { meta: { progressToken: 'p' } }), (m) => m.length === 2)
    expect(seen[0]).toMatchObject({ method: 'notifications/requests/resumePolicy', params: { requestId: 7, maxWait: 5 } })
    expect(seen[1]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } })
    const resumeToken = seen[0]!.params.resumeToken as string

    gates[1]!.resolve()
    const processing = await json(await post(b, 8, 'requests/getStatus', { requestId: 7, resumeToken }))
    expect(processing.result).toMatchObject({ requestId: 7, status: 'processing', hasInputRequest: false })

    gates[2]!.resolve()
    const status = async () => (await json(await post(b, 9, 'requests/getStatus', { requestId: 7, resumeToken }))).result
    let done = await status()
    while (done.status !== 'completed') done = await new Promise((r) => setTimeout(r, 10)).then(status)
    expect(done).toMatchObject({ status: 'completed', hasPendingMessage: true, hasInputRequest: false })

    // The client had the first report (event id 1): the resume brings the rest, each with its event id, and
    // the response last. Without Last-Event-ID a resume replays from the first report (at least once).
    const resumed = await post(b, 7, 'requests/resume', { resumeToken }, { headers: { 'last-event-id': '1' } })
    const events = (await resumed.res.text()).split('\n\n').filter((e) => e.includes('data:'))
    const rest = events.map((e) => JSON.parse(e.slice(e.indexOf('data:') + 5)) as Message)
    for (const m of rest) expect(validateServerMessage('2026-07-28', 'requests/resume', m)).toEqual([])
    expect(rest.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([2, 3, 'done'])
    expect(events.map((e) => /^id: (\d+)$/m.exec(e)?.[1])).toEqual(['2', '3', undefined])
    expect(rest.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'done' }] } })
    expect(await status()).toMatchObject({ status: 'completed', hasPendingMessage: false })
    const again = await read(await post(a, 7, 'requests/resume', { resumeToken }, { headers: { 'last-event-id': 'x2' } }), hasResult)
    expect(again.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([1, 2, 3, 'done'])
    // Last-Event-ID is a count of at most 9 digits: beyond the log, the response alone; anything else, from the first.
    const beyond = await json(await post(a, 7, 'requests/resume', { resumeToken }, { headers: { 'last-event-id': '12' } }))
    expect(beyond.result.content[0].text).toBe('done')
    const huge = await read(await post(a, 7, 'requests/resume', { resumeToken }, { headers: { 'last-event-id': '1234567890' } }), hasResult)
    expect(huge.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([1, 2, 3, 'done'])
  })

  it('streams each message as it is kept, and tells what a client has not had', async () => {
    const gates = [deferred()]
    const handler = createFetchHandler(server(gates), options())
    const sent = await post(handler, 'live', 'tools/call', { name: 'slow', arguments: {} }, { meta: { progressToken: 'p' } })
    const reader = sseMessages(sent.res.body!)
    const policy = (await reader.next()).value as Message
    const resumeToken = policy.params.resumeToken as string
    // Kept after the stream read the record: it arrives because it was published, not re-read.
    gates[0]!.resolve()
    expect((await reader.next()).value).toMatchObject({ method: 'notifications/progress', params: { progress: 1 } })
    expect((await reader.next()).value).toMatchObject({ id: 'live', result: { content: [{ text: 'done' }] } })
    await reader.return(undefined)
    const status = (await json(await post(handler, 's', 'requests/getStatus', { requestId: 'live', resumeToken }))).result
    expect(status).toMatchObject({ requestId: 'live', status: 'completed', hasPendingMessage: false, hasInputRequest: false })
  })

  it('a live message after one the backplane lost waits for the record: the stream has no hole', async () => {
    const gates = [deferred(), deferred(), deferred()]
    // A backplane is no log: this one loses the second message's publish, as one may while it reconnects.
    const inner = memoryBackplane()
    const lost = deferred()
    const backplane: Backplane = {
      publish: async (event) => (event.data?.seq === 2 ? lost.resolve() : inner.publish(event)),
      subscribe: (topics, listener) => inner.subscribe(topics, listener),
    }
    const handler = createFetchHandler(server(gates), options(memoryTaskStore(), { backplane }))
    const sent = await post(handler, 'gap', 'tools/call', { name: 'slow', arguments: {} }, { meta: { progressToken: 'g' } })
    const reader = sseMessages(sent.res.body!)
    expect((await reader.next()).value).toMatchObject({ method: 'notifications/requests/resumePolicy' })
    gates[0]!.resolve()
    expect((await reader.next()).value).toMatchObject({ params: { progress: 1 } })
    gates[1]!.resolve()
    await lost.promise
    // The third arrives live right after the first: written as it came, the client would never have the second.
    gates[2]!.resolve()
    const rest: Message[] = []
    for await (const message of reader) rest.push(message)
    expect(rest.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([2, 3, 'done'])
  })

  it('a client that had every report so far has nothing pending while the call runs, and the response once it ends', async () => {
    const gates = [deferred(), deferred()]
    gates[0]!.resolve()
    const handler = createFetchHandler(server(gates), options())
    const [policy] = await read(await post(handler, 'p', 'tools/call', { name: 'slow', arguments: {} }, { meta: { progressToken: 'p' } }), (m) => m.length === 2)
    const status = async () => (await json(await post(handler, 's', 'requests/getStatus', { requestId: 'p', resumeToken: policy!.params.resumeToken }))).result
    let now = await status()
    while (now.hasPendingMessage) now = await new Promise((r) => setTimeout(r, 10)).then(status)
    expect(now).toMatchObject({ status: 'processing', hasPendingMessage: false })
    gates[1]!.resolve()
    while (now.status === 'processing') now = await new Promise((r) => setTimeout(r, 10)).then(status)
    expect(now).toMatchObject({ status: 'completed', hasPendingMessage: true })

    // Every report had, only the response missing: still something pending.
    const gate = [deferred()]
    const quiet = createFetchHandler(server(gate), options())
    const [p] = await read(await post(quiet, 'q', 'tools/call', { name: 'quiet', arguments: {} }, { meta: { progressToken: 'q' } }), (m) => m.length === 2)
    const quietStatus = async () => (await json(await post(quiet, 's', 'requests/getStatus', { requestId: 'q', resumeToken: p!.params.resumeToken }))).result
    let q = await quietStatus()
    while (q.hasPendingMessage) q = await new Promise((r) => setTimeout(r, 10)).then(quietStatus)
    gate[0]!.resolve()
    while (q.status === 'processing') q = await new Promise((r) => setTimeout(r, 10)).then(quietStatus)
    expect(q).toMatchObject({ status: 'completed', hasPendingMessage: true })
  })

  it('a call that needs input ends resumably with input_required; its retry, resumable too, completes', async () => {
    const handler = createFetchHandler(server([]), options())
    const first = await read(await post(handler, 'q', 'tools/call', { name: 'ask', arguments: {} }), hasResult)
    const asked = first.at(-1)!.result
    expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { name: { method: 'elicitation/create' } } })
    const retry = await read(await post(handler, 'q2', 'tools/call', {
      name: 'ask', arguments: {}, requestState: asked.requestState, inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    }), hasResult)
    expect(retry[0]!.method).toBe('notifications/requests/resumePolicy')
    expect(retry.at(-1)!.result.content[0].text).toBe('Hello, Ada')
    const asking = (await json(await post(handler, 's', 'requests/getStatus', { requestId: 'q', resumeToken: first[0]!.params.resumeToken }))).result
    expect(asking).toMatchObject({ status: 'completed', hasInputRequest: true })
  })

  it('runs the handler with the caller\'s identity; ends with the handler\'s JSON-RPC error when it fails', async () => {
    const handler = createFetchHandler(server([]), options(memoryTaskStore(), { auth: bearerAuth(namedUsers()) }))
    const who = await read(await post(handler, 'w', 'tools/call', { name: 'whoami', arguments: {} }, { user: 'alice' }), hasResult)
    expect(who.at(-1)!.result.content[0].text).toBe('alice')
    const failed = await read(await post(handler, 'f', 'tools/call', { name: 'fails', arguments: {} }, { user: 'alice' }), hasResult)
    expect(failed.at(-1)).toMatchObject({ id: 'f', error: { code: -32042, message: 'no such thing' } })
  })

  it('leaves calls that run as tasks to the tasks extension, and responses delivered whole alone', async () => {
    const handler = createFetchHandler(server([]), options())
    const withTasks = { ...RESUMABLE, extensions: { 'io.modelcontextprotocol/tasks': {} } }
    expect((await json(await post(handler, 1, 'tools/call', { name: 'job', arguments: {} }, { capabilities: withTasks }))).result).toMatchObject({ resultType: 'task' })
    expect((await json(await post(handler, 2, 'tools/call', { name: 'must', arguments: {} }))).error).toMatchObject({ code: -32021 })
    expect((await json(await post(handler, 5, 'tools/call', { name: 'must', arguments: {} }, { capabilities: withTasks }))).result).toMatchObject({ resultType: 'task' })
    expect((await read(await post(handler, 3, 'tools/call', { name: 'job', arguments: {} }), hasResult))[0]!.method).toBe('notifications/requests/resumePolicy')
    expect((await read(await post(handler, 6, 'tools/call', { name: 'whoami', arguments: {} }, { capabilities: withTasks }), hasResult))[0]!.method).toBe('notifications/requests/resumePolicy')
    // The seed draft's client asks for a task with params.task: a task it gets.
    const seedBody = { name: 'job', arguments: {}, task: {}, _meta: SEED_META({ resumableRequests: {} }) }
    const seed = await handler(new Request('http://localhost/mcp', { method: 'POST', headers: modernHeaders('tools/call', seedBody, 'DRAFT-2026-v1'), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: seedBody }) }))
    expect(((await seed.json()) as Message).result.task).toMatchObject({ status: 'working' })
    const body = { name: 'slow', arguments: {}, _meta: META_2026(RESUMABLE) }
    const whole = await handler(new Request('http://localhost/mcp', { method: 'POST', headers: modernHeaders('tools/call', body), body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: body }) }), { buffered: true })
    expect(whole.headers.get('content-type')).toBe('application/json')
    expect(((await whole.json()) as Message).result.content[0].text).toBe('done')
  })

  it('a client asking for the status keeps a call alive past maxWait; its record stays readable as long', async () => {
    const aborted = deferred()
    const handler = createFetchHandler(server([], aborted), { extensions: [tasks(), resumable({ maxWaitMs: 300, leaseMs: 60 })], requestState: { secret: TEST_SECRET } })
    const [policy] = await read(await post(handler, 'k', 'tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'k' } }), (m) => m.length === 2)
    const status = async () => (await json(await post(handler, 's', 'requests/getStatus', { requestId: 'k', resumeToken: policy!.params.resumeToken }))).result
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 100))
      expect(await status()).toMatchObject({ status: 'processing' })
    }
    expect(aborted.settled).toBe(false)
    await aborted.promise
    const gone = await json(await post(handler, 's', 'requests/getStatus', { requestId: 'k', resumeToken: policy!.params.resumeToken }))
    expect(gone.result ?? gone.error).toMatchObject(gone.result ? { status: 'failed' } : { code: -32602 })

    const done = createFetchHandler(server([]), { extensions: [tasks(), resumable({ maxWaitMs: 300 })], requestState: { secret: TEST_SECRET } })
    const [p] = await read(await post(done, 'd', 'tools/call', { name: 'whoami', arguments: {} }), hasResult)
    const asked = async () => (await json(await post(done, 's', 'requests/getStatus', { requestId: 'd', resumeToken: p!.params.resumeToken }))).result
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 100))
      expect(await asked()).toMatchObject({ status: 'completed' })
    }
  })

  it('aborts the calls it runs when the server shuts down', async () => {
    const aborted = deferred()
    const handler = createFetchHandler(server([], aborted), options())
    await read(await post(handler, 'x', 'tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'x' } }), (m) => m.length === 2)
    await handler.close()
    await aborted.promise
  })

  it('refuses a token for another id, another principal, or altered', async () => {
    const gates = [deferred()]
    const handler = createFetchHandler(server(gates), options(memoryTaskStore(), { auth: bearerAuth(namedUsers()) }))
    const [policy] = await read(await post(handler, 1, 'tools/call', { name: 'slow', arguments: {} }, { user: 'alice' }), (m) => m.length === 1)
    const resumeToken = policy!.params.resumeToken as string
    // A requestState is sealed with the same key, even one whose memo looks like a token's: it must not pass for a resume token.
    const asked = (await json(await post(handler, 9, 'tools/call', { name: 'recall', arguments: {} }, { user: 'alice', capabilities: { elicitation: {} } }))).result
    const refusals = [
      [await post(handler, 2, 'requests/resume', { resumeToken }, { user: 'alice' }), /another id/],
      [await post(handler, 1, 'requests/resume', { resumeToken }, { user: 'mallory' }), /different principal/],
      [await post(handler, 5, 'requests/getStatus', { requestId: 1, resumeToken }, { user: 'mallory' }), /different principal/],
      [await post(handler, 1, 'requests/resume', { resumeToken: resumeToken.slice(0, -2) + (resumeToken.endsWith('AA') ? 'BB' : 'AA') }, { user: 'alice' }), /Invalid resumeToken/],
      [await post(handler, 9, 'requests/resume', { resumeToken: asked.requestState }, { user: 'alice' }), /not a resume token/],
    ] as const
    for (const [sent, why] of refusals) expect((await json(sent)).error).toMatchObject({ code: -32602, message: expect.stringMatching(why) })
    gates[0]!.resolve()
  })

  it('cancels a call nobody came back for within maxWait: its handler is aborted and its messages forgotten', async () => {
    const aborted = deferred()
    const store = memoryTaskStore()
    const handler = createFetchHandler(server([], aborted), { extensions: [tasks(), resumable({ store, maxWaitMs: 200, leaseMs: 60 })], requestState: { secret: TEST_SECRET } })
    const [policy] = await read(await post(handler, 3, 'tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'p' } }), (m) => m.length === 2)
    await aborted.promise
    const [task] = (await store.list!('', undefined, 10)).tasks
    expect(task).toMatchObject({ status: 'cancelled' })
    expect(task!.log).toBeUndefined()
    const late = await json(await post(handler, 3, 'requests/resume', { resumeToken: policy!.params.resumeToken }))
    expect(late.error).toMatchObject({ code: -32602, message: 'The request was cancelled: No client resumed the request in time' })
  })

  it('keeps its records out of the tasks of the same store: no tasks/get of one', async () => {
    const store = memoryTaskStore()
    const handler = createFetchHandler(server([]), options(store))
    await read(await post(handler, 'r', 'tools/call', { name: 'ask', arguments: {} }), hasResult)
    const [record] = (await store.list!('', undefined, 10)).tasks
    const asTask = await json(await post(handler, 't', 'tasks/get', { taskId: record!.id }, { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }))
    expect(asTask.error).toMatchObject({ code: -32602, message: `Unknown task: ${record!.id}` })
  })

  it('changes nothing for a client that does not declare it', async () => {
    const gates = [deferred()]
    gates[0]!.resolve()
    const handler = createFetchHandler(server(gates), options())
    const sent = await post(handler, 1, 'tools/call', { name: 'slow', arguments: {} }, { capabilities: {} })
    expect(sent.res.headers.get('content-type')).toBe('application/json')
    expect((await json(sent)).result.content[0].text).toBe('done')
    const discover = await json(await post(handler, 2, 'server/discover', {}, { capabilities: {} }))
    expect(discover.result.capabilities.experimental).toEqual({ resumableRequests: {} })
    // Only its task tools bring an extension: resumable requests add none.
    expect(Object.keys(discover.result.capabilities.extensions)).toEqual(['io.modelcontextprotocol/tasks'])
    // Alone, they leave no empty extensions member either.
    const alone = createFetchHandler(new McpServer({ name: 'r', version: '1' }).tool('t', {}, () => 't'), { extensions: [resumable()], requestState: { secret: TEST_SECRET } })
    const plain = await json(await post(alone, 3, 'server/discover', {}, { capabilities: {} }))
    expect(plain.result.capabilities).not.toHaveProperty('extensions')
    expect(plain.result.capabilities.experimental).toEqual({ resumableRequests: {} })
  })

  it('writes each published message at once, without reading the record again, while it has every one before', async () => {
    const gates = [deferred(), deferred(), deferred()]
    const inner = memoryTaskStore()
    let reads = 0
    // The log is read where the stream starts or falls behind; in step, the published batches carry it.
    const store = { ...inner, get: (id: string) => (reads++, inner.get(id)) }
    const handler = createFetchHandler(server(gates), options(store))
    const sent = await post(handler, 4, 'tools/call', { name: 'slow', arguments: {} }, { meta: { progressToken: 'p' } })
    const messages: Message[] = []
    const stream = (async () => {
      for await (const m of sseMessages(sent.res.body!)) messages.push(m)
    })()
    while (messages.length < 1) await new Promise((r) => setTimeout(r, 5))
    const before = reads
    for (const [i, gate] of gates.slice(0, 2).entries()) {
      gate.resolve()
      while (messages.length < i + 2) await new Promise((r) => setTimeout(r, 5))
    }
    expect(reads).toBe(before)
    gates[2]!.resolve()
    await stream
    expect(messages.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([undefined, 1, 2, 3, 'done'])
  })

  it('keeps a call alive past maxWait while its client is still reading it (the runner would drop it at its next lease renewal)', async () => {
    const gates = [deferred()]
    const handler = createFetchHandler(server(gates), options(memoryTaskStore(), { extensions: [tasks(), resumable({ maxWaitMs: 150, leaseMs: 60 })] }))
    const sent = await post(handler, 5, 'tools/call', { name: 'quiet', arguments: {} }, { meta: { progressToken: 'q' } })
    setTimeout(() => gates[0]!.resolve(), 600)
    const messages = await read(sent, hasResult)
    expect(messages.at(-1)).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'quiet' }] } })
  })

  it('says how long a client should wait at least, in whole seconds rounded up', async () => {
    const gates = [deferred()]
    const handler = createFetchHandler(server(gates), options(memoryTaskStore(), { extensions: [tasks(), resumable({ minWaitMs: 1_500, maxWaitMs: 5_000 })] }))
    const [policy] = await read(await post(handler, 6, 'tools/call', { name: 'slow', arguments: {} }), (m) => m.length === 1)
    expect(policy!.params).toMatchObject({ requestId: 6, minWait: 2, maxWait: 5 })
    gates[0]!.resolve()
  })

  it('runs the call with what the platform gave the request (ctx.env)', async () => {
    const handler = createFetchHandler(server([]), options())
    const messages = await read(await post(handler, 7, 'tools/call', { name: 'where', arguments: {} }, { env: { region: 'eu-west-1' } }), hasResult)
    expect(messages.at(-1)).toMatchObject({ result: { content: [{ type: 'text', text: 'eu-west-1' }] } })
  })

  it('refuses a status without a request id, and tells a client whose request is gone that it expired', async () => {
    const gates = [deferred()]
    const store = memoryTaskStore()
    const handler = createFetchHandler(server(gates), options(store))
    const [policy] = await read(await post(handler, 8, 'tools/call', { name: 'slow', arguments: {} }), (m) => m.length === 1)
    const resumeToken = policy!.params.resumeToken as string
    const noId = await json(await post(handler, 9, 'requests/getStatus', { requestId: { not: 'an id' }, resumeToken }))
    expect(noId.error).toMatchObject({ code: -32602, message: 'params.requestId must be a string or a number' })
    const noToken = await json(await post(handler, 8, 'requests/resume', { resumeToken: 42 }))
    expect(noToken.error).toMatchObject({ code: -32602, message: 'params.resumeToken must be a string' })
    await store.close!()
    const expired = 'The request has expired: no client came back for it in time'
    expect((await json(await post(handler, 10, 'requests/getStatus', { requestId: 8, resumeToken }))).error).toMatchObject({ code: -32602, message: expired })
    expect((await json(await post(handler, 8, 'requests/resume', { resumeToken }))).error).toMatchObject({ code: -32602, message: expired })
    gates[0]!.resolve()
  })

  it('a token of another server (same key) or a broken one is refused in words of its own', async () => {
    const gates = [deferred()]
    const store = memoryTaskStore()
    const handler = createFetchHandler(server(gates), options(store))
    const [policy] = await read(await post(handler, 11, 'tools/call', { name: 'slow', arguments: {} }), (m) => m.length === 1)
    const resumeToken = policy!.params.resumeToken as string
    const other = createFetchHandler(new McpServer({ name: 'another', version: '1.0.0' }), options(store))
    expect((await json(await post(other, 11, 'requests/resume', { resumeToken }))).error)
      .toMatchObject({ code: -32602, message: 'Invalid resumeToken: it is not a resume token of this server' })
    // Said as a resume token's fault, not a requestState's, though both are sealed alike.
    expect((await json(await post(handler, 11, 'requests/resume', { resumeToken: 'x' }))).error).toMatchObject({ code: -32602, message: 'Invalid resumeToken: malformed' })
    gates[0]!.resolve()
  })

  it('aborts its calls at once when the server closes, whatever their store', async () => {
    let reason: unknown
    const stopped = deferred()
    const lone = new McpServer({ name: 'resumable', version: '1.0.0' }).tool('forever', {}, async (_args, ctx) => {
      ctx.progress(1)
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      reason = ctx.signal.reason
      stopped.resolve()
      return 'aborted'
    })
    // Nothing but its own extension: no tasks extension sharing the store, a lease far off.
    const handler = createFetchHandler(lone, { extensions: [resumable({ store: memoryTaskStore(), maxWaitMs: 60_000, leaseMs: 60_000 })], requestState: { secret: TEST_SECRET } })
    await read(await post(handler, 'z', 'tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'z' } }), (m) => m.length === 2)
    const closing = handler.close()
    await Promise.race([stopped.promise, new Promise((_, reject) => setTimeout(() => reject(new Error('not aborted within 1 s')), 1_000))])
    expect((reason as Error).message).toBe('The server is shutting down')
    await closing
  })

  it('reports a renewal the store refused, with the request it was for, and keeps the stream going', async () => {
    const gates = [deferred()]
    const inner = memoryTaskStore()
    let failing = false
    // Only the stream's renewals write while the call waits (the runner's lease is renewed far later).
    const store = { ...inner, put: (task: Parameters<typeof inner.put>[0]) => (failing ? Promise.reject(new Error('store down')) : inner.put(task)) }
    const reports: [string, Record<string, unknown>][] = []
    const handler = createFetchHandler(server(gates), {
      extensions: [tasks(), resumable({ store, maxWaitMs: 3_000, leaseMs: 60_000 })], requestState: { secret: TEST_SECRET },
      onError: (e, context) => void reports.push([(e as Error).message, { ...context }]),
    })
    const sent = await post(handler, 12, 'tools/call', { name: 'quiet', arguments: {} }, { meta: { progressToken: 'q' } })
    const done = read(sent, hasResult)
    failing = true
    for (const end = Date.now() + 3_000; Date.now() < end && !reports.some(([, c]) => c.during === 'resumable renew');) await new Promise((r) => setTimeout(r, 20))
    failing = false
    expect(reports.find(([, c]) => c.during === 'resumable renew')).toEqual(['store down', expect.objectContaining({ during: 'resumable renew', requestId: expect.any(String) })])
    gates[0]!.resolve()
    expect((await done).at(-1)).toMatchObject({ id: 12, result: { content: [{ type: 'text', text: 'quiet' }] } })
  })
})
