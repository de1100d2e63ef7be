/**
 * Kept work is bounded (issue 26, finding 1): live records per client (a principal, or an anonymous client's
 * address) and in all, characters per record (arguments, answers, results), and bytes in all in the memory
 * store. A refusal says which bound it met, with 429 or 503 and Retry-After, or -32602; nothing already
 * kept is lost, and other clients' work goes on.
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, McpServer, memoryTaskStore, resumable, tasks, type HandlerOptions, type RuntimeContext } from '../../src/index.js'
import { deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'
import { handlerPool, TASK_CAPABILITIES, taskClient } from '../helpers/tasks.js'

const gate = deferred()
const server = () => new McpServer({ name: 'limits', version: '1' })
  .tool('work', { task: 'required' }, async () => {
    await gate.promise
    return 'done'
  })
  .tool('echo', { task: 'required' }, (args) => JSON.stringify(args))
  .tool('big', { task: 'required' }, () => 'x'.repeat(5000))
  .tool('ask', { task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.elicit('name', { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
    return String(answer.content?.name)
  })

const newHandler = handlerPool()

/** A tools/call of a client that declares tasks: its status, Retry-After and body, whatever it is. */
async function call(handler: (r: Request, p?: RuntimeContext) => Promise<Response>, name: string, args: Record<string, unknown> = {}, headers: Record<string, string> = {}, platform?: RuntimeContext) {
  const params = { name, arguments: args, _meta: META_2026(TASK_CAPABILITIES) }
  let retryAfter: string | null = null
  const res = await rpc(async (r) => {
    const response = await handler(r, platform)
    retryAfter = response.headers.get('retry-after')
    return response
  }, 'tools/call', params, { headers: { ...modernHeaders('tools/call', params), ...headers } })
  return { status: res.status, retryAfter, body: res.body }
}

const setup = (options: HandlerOptions) => newHandler({ ...options }, server())

describe('kept work per client', () => {
  it("refuses a principal's task past its share with 429 and Retry-After; other principals go on, and the kept tasks are untouched", async () => {
    const store = memoryTaskStore()
    const h = setup({ auth: bearerAuth(namedUsers()), extensions: [tasks({ store, maxPerClient: 2 })] })
    const kept = [await call(h, 'work', {}, as('alice')), await call(h, 'work', {}, as('alice'))]
    expect(kept.map((k) => k.body.result.resultType)).toEqual(['task', 'task'])
    expect(await call(h, 'work', {}, as('alice'))).toEqual({
      status: 429, retryAfter: '30',
      body: { jsonrpc: '2.0', id: expect.anything(), error: { code: -32000, message: 'This client has 2 records kept, its most: let one end or expire', data: { retryAfterMs: 30_000 } } },
    })
    expect((await call(h, 'work', {}, as('bob'))).body.result.resultType).toBe('task')
    expect(store.size).toBe(3)
    const alice = taskClient(h, as('alice'))
    for (const k of kept) expect((await alice.get(k.body.result.taskId)).result!.status).toBe('working')
  })

  it('counts anonymous clients by address, and ended tasks until they expire', async () => {
    const h = setup({ extensions: [tasks({ maxPerClient: 1, ttlMs: 200 })] })
    const a = { clientAddress: '192.0.2.1' }
    const first = await call(h, 'echo', {}, {}, a)
    await taskClient((r) => h(r, a)).waitFor(first.body.result.taskId, ['completed'])
    expect((await call(h, 'echo', {}, {}, a)).status).toBe(429)
    expect((await call(h, 'echo', {}, {}, { clientAddress: '192.0.2.2' })).body.result.resultType).toBe('task')
    // Expired, it counts for nothing, swept or not.
    await new Promise((r) => setTimeout(r, 250))
    expect((await call(h, 'echo', {}, {}, a)).body.result.resultType).toBe('task')
  })
})

describe('kept work in all', () => {
  it('refuses anyone past maxRecords with 503 and Retry-After', async () => {
    const h = setup({ auth: bearerAuth(namedUsers()), extensions: [tasks({ maxRecords: 2 })] })
    await call(h, 'work', {}, as('alice'))
    await call(h, 'work', {}, as('bob'))
    const refused = await call(h, 'work', {}, as('carol'))
    expect([refused.status, refused.retryAfter, refused.body.error]).toEqual([503, '30', { code: -32000, message: 'This server keeps 2 records, its most: try again later', data: { retryAfterMs: 30_000 } }])
  })

  it('refuses past the memory store’s bytes with 503, then takes work again once records expire', async () => {
    const store = memoryTaskStore({ maxBytes: 6000 })
    const h = setup({ extensions: [tasks({ store, ttlMs: 200 })] })
    const first = await call(h, 'echo', { text: 'x'.repeat(2000) })
    // Its result doubles it: some 4,400 characters kept.
    await taskClient(h).waitFor(first.body.result.taskId, ['completed'])
    const refused = await call(h, 'echo', { text: 'x'.repeat(2000) })
    expect([refused.status, refused.retryAfter, refused.body.error.message]).toEqual([503, '30', 'This server keeps 6000 characters of records, its most: try again later'])
    expect(store.bytes).toBeGreaterThan(4000)
    expect(store.bytes).toBeLessThanOrEqual(6000)
    await new Promise((r) => setTimeout(r, 250))
    expect((await call(h, 'echo', { text: 'x'.repeat(2000) })).body.result.resultType).toBe('task')
    expect(store.size).toBe(1)
  })
})

describe('kept work per record', () => {
  it('refuses arguments past maxRecordBytes with -32602, keeping nothing of them', async () => {
    const store = memoryTaskStore()
    const h = setup({ extensions: [tasks({ store, maxRecordBytes: 1000 })] })
    const refused = await call(h, 'echo', { text: 'x'.repeat(1000) })
    expect(refused.status).toBe(200)
    expect(refused.body.error).toEqual({ code: -32602, message: expect.stringMatching(/^The task is too large to keep: \d+ characters of JSON, at most 1000$/) })
    expect(store.size).toBe(0)
    expect((await call(h, 'echo', { text: 'x'.repeat(100) })).body.result.resultType).toBe('task')
  })

  it('refuses answers that would take a task past it, and the task still waits for good ones', async () => {
    const h = setup({ extensions: [tasks({ maxRecordBytes: 2000 })] })
    const client = taskClient(h)
    const id = await client.start('ask')
    await client.waitFor(id, ['input_required'])
    const refused = await client.update(id, { name: { action: 'accept', content: { name: 'x'.repeat(2000) } } })
    expect(refused.error).toEqual({ code: -32602, message: expect.stringMatching(/^The task would be too large to keep: \d+ characters of JSON, at most 2000$/) })
    expect((await client.get(id)).result!.status).toBe('input_required')
    await client.update(id, { name: { action: 'accept', content: { name: 'Ada' } } })
    expect((await client.waitFor(id, ['completed'])).result.content[0].text).toBe('Ada')
  })

  it('fails a task whose result it cannot keep, saying why', async () => {
    const h = setup({ extensions: [tasks({ maxRecordBytes: 3000 })] })
    const client = taskClient(h)
    const failed = await client.waitFor(await client.start('big'), ['failed', 'completed'])
    expect(failed.status).toBe('failed')
    expect(failed.error).toEqual({ code: -32603, message: expect.stringMatching(/^The task would be too large to keep: \d+ characters of JSON, at most 3000$/) })
  })

  it('takes its limits as positive integers only', () => {
    for (const bad of [{ maxPerClient: 0 }, { maxRecords: 1.5 }, { maxRecordBytes: -1 }]) {
      expect(() => tasks(bad)).toThrow(`tasks.${Object.keys(bad)[0]} must be a positive integer`)
      expect(() => resumable(bad)).toThrow(`resumable.${Object.keys(bad)[0]} must be a positive integer`)
    }
  })
})
