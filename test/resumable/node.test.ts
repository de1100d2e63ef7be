/**
 * Resumable requests (the seed draft's proposal, src/resumable/) through the fetch handler: a client that
 * declares `resumableRequests` leaves after the policy and a first progress report, asks for the status,
 * and resumes on another instance sharing the store. Every message is checked against the seed's schema.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, memoryTaskStore, type FetchHandler, type HandlerOptions } from '../../src/index.js'
import { deferred, type Deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
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
    .tool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit('name', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      return `Hello, ${String(answer.content?.name)}`
    })
}

interface Sent { res: Response; method: string }

interface PostOptions { capabilities?: Record<string, unknown>; meta?: Record<string, unknown>; user?: string; headers?: Record<string, string> }

async function post(handler: FetchHandler, id: number | string, method: string, params: Record<string, unknown>, options: PostOptions = {}): Promise<Sent> {
  const body = { ...params, _meta: META_2026(options.capabilities ?? { ...RESUMABLE, elicitation: {} }, options.meta) }
  const headers = { ...modernHeaders(method, body), ...(options.user ? as(options.user) : {}), ...options.headers }
  const res = await handler(new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }) }))
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
  ({ resumable: { store, maxWaitMs: 5_000 }, requestState: { secret: TEST_SECRET }, ...more })

describe('resumable requests', () => {
  it('leaving after the policy suspends the call; getStatus and resume on another instance replay what was missed', async () => {
    const gates = [deferred(), deferred(), deferred()]
    const store = memoryTaskStore()
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
    expect(done).toMatchObject({ status: 'completed', hasPendingMessage: true })

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
    const again = await read(await post(a, 7, 'requests/resume', { resumeToken }), hasResult)
    expect(again.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([1, 2, 3, 'done'])
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
  })

  it('refuses a token for another id, another principal, or altered', async () => {
    const gates = [deferred()]
    const handler = createFetchHandler(server(gates), options(memoryTaskStore(), { auth: namedUsers() }))
    const [policy] = await read(await post(handler, 1, 'tools/call', { name: 'slow', arguments: {} }, { user: 'alice' }), (m) => m.length === 1)
    const resumeToken = policy!.params.resumeToken as string
    const refusals = [
      [await post(handler, 2, 'requests/resume', { resumeToken }, { user: 'alice' }), /another id/],
      [await post(handler, 1, 'requests/resume', { resumeToken }, { user: 'mallory' }), /different principal/],
      [await post(handler, 5, 'requests/getStatus', { requestId: 1, resumeToken }, { user: 'mallory' }), /different principal/],
      [await post(handler, 1, 'requests/resume', { resumeToken: resumeToken.slice(0, -2) + (resumeToken.endsWith('AA') ? 'BB' : 'AA') }, { user: 'alice' }), /Invalid resumeToken/],
    ] as const
    for (const [sent, why] of refusals) expect((await json(sent)).error).toMatchObject({ code: -32602, message: expect.stringMatching(why) })
    gates[0]!.resolve()
  })

  it('cancels a call nobody came back for within maxWait: its handler is aborted and its messages forgotten', async () => {
    const aborted = deferred()
    const store = memoryTaskStore()
    const handler = createFetchHandler(server([], aborted), { resumable: { store, maxWaitMs: 200, leaseMs: 60 }, requestState: { secret: TEST_SECRET } })
    const [policy] = await read(await post(handler, 3, 'tools/call', { name: 'forever', arguments: {} }, { meta: { progressToken: 'p' } }), (m) => m.length === 2)
    await aborted.promise
    const [task] = (await store.list!('', undefined, 10)).tasks
    expect(task).toMatchObject({ status: 'cancelled' })
    expect(task!.log).toBeUndefined()
    const late = await json(await post(handler, 3, 'requests/resume', { resumeToken: policy!.params.resumeToken }))
    expect(late.error).toMatchObject({ code: -32602, message: /cancelled: No client resumed the request in time/ })
  })

  it('keeps its records out of the tasks of the same store: no tasks/get of one', async () => {
    const store = memoryTaskStore()
    const handler = createFetchHandler(server([]), options(store, { tasks: { store } }))
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
    expect(discover.result.capabilities.extensions).toBeUndefined()
  })
})
