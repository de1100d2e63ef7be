/**
 * The tasks extension through the fetch handler: creation, the three methods, input inside and before a
 * task, cancellation, leases, deadlines, shutdown, TTL, principals and listen notifications. Every answer
 * is checked against the extension's schema (test/helpers/wire.ts).
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, type HandlerOptions, McpError, McpServer, memoryBackplane, memoryTaskStore, type RuntimeContext, type TaskRecord, TASKS, tasks } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, openListen, rpc } from '../helpers/server.js'
import { FORM, handlerPool, waitingServer } from '../helpers/tasks.js'
import { recordingFetch } from '../helpers/wire.js'

const WITH_TASKS = { extensions: { [TASKS]: {} }, elicitation: {} }
const newHandler = handlerPool()

function setup(options: HandlerOptions = {}, server?: McpServer) {
  const handler = newHandler(options, server)
  let id = 0
  const call = (method: string, params: Record<string, unknown>, caps: Record<string, unknown> = WITH_TASKS, headers?: Record<string, string>, platform?: RuntimeContext) =>
    rpc((r) => handler(r, platform), method, { ...params, _meta: META_2026(caps) }, { id: ++id, headers: headers && { ...modernHeaders(method, params), ...headers } })
  const result = async (method: string, params: Record<string, unknown>, caps?: Record<string, unknown>, headers?: Record<string, string>) => {
    const res = await call(method, params, caps, headers)
    expect(res.body.error).toBeUndefined()
    return res.body.result
  }
  const status = async (taskId: string, wanted: string[], headers?: Record<string, string>) => {
    let task: Record<string, any> = {}
    for (const end = Date.now() + 5000; !wanted.includes(task.status) && Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
      task = await result('tasks/get', { taskId }, undefined, headers)
    }
    expect(task.status).toBeOneOf(wanted)
    return task
  }
  return { handler, call, result, status }
}


describe('tasks: creation and reading', () => {
  it('advertises the extension (never capabilities.tasks), and only when some tool can run as a task', async () => {
    const { result } = setup()
    const caps = (await result('server/discover', {})).capabilities
    expect(caps.extensions).toEqual({ [TASKS]: {} })
    expect(caps).not.toHaveProperty('tasks')
    const plain = setup({}, new McpServer({ name: 'plain', version: '1' }).tool('t', {}, () => 't'))
    expect((await plain.result('server/discover', {})).capabilities).not.toHaveProperty('extensions')
  })

  it('answers a flat CreateTaskResult that an immediate tasks/get sees, then the inlined result', async () => {
    const { result, status } = setup({ extensions: [tasks({ pollIntervalMs: 250, ttlMs: 120_000 })] })
    const created = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 'x' } })
    expect(Object.keys(created).sort()).toEqual(['_meta', 'createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs'])
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 250 })
    expect(created.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/)
    // A running task is kept at least its retention beyond its lease: never evicted while it runs.
    expect(created.ttlMs).toBeGreaterThanOrEqual(120_000 + 30_000)
    const working = await result('tasks/get', { taskId: created.taskId })
    expect(working).toMatchObject({ taskId: created.taskId, status: 'working', resultType: 'complete' })
    expect(working).not.toHaveProperty('result')
    const done = await status(created.taskId, ['completed'])
    expect(done.result.content).toEqual([{ type: 'text', text: 'Computed x in 1s' }])
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThan(Date.parse(done.createdAt))
    // Retention now runs from the end: the task is readable for ttlMs after it.
    expect(Date.parse(done.createdAt) + done.ttlMs).toBeGreaterThanOrEqual(Date.parse(done.lastUpdatedAt) + 120_000)
  })

  it('runs an optional task tool as a plain call for a request that did not declare the extension', async () => {
    const { result } = setup()
    const plain = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, {})
    expect(plain).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Computed result in 0s' }] })
  })

  it('refuses a required task tool and the task methods to a client without the extension: -32021, HTTP 400', async () => {
    const { call } = setup()
    const required = await call('tools/call', { name: 'failing_job', arguments: {} }, { elicitation: {} })
    expect(required.status).toBe(400)
    expect(required.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } })
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const res = await call(method, { taskId: 'AAAAAAAAAAAAAAAAAAAAAA', inputResponses: {} }, {})
      expect([method, res.status, res.body.error.code]).toEqual([method, 400, -32021])
    }
  })

  it('has no tasks/result or tasks/list (-32601, 404), whatever the headers', async () => {
    const { call } = setup()
    for (const method of ['tasks/result', 'tasks/list']) {
      const res = await call(method, { taskId: 'AAAAAAAAAAAAAAAAAAAAAA' })
      expect([res.status, res.body.error.code]).toEqual([404, -32601])
    }
  })

  it('checks Mcp-Name against taskId on the three task methods (-32020, 400)', async () => {
    const { call, result, handler } = setup()
    const { taskId } = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 5 } })
    const wrong = await call('tasks/get', { taskId }, undefined, { 'mcp-name': 'someone-else' })
    expect([wrong.status, wrong.body.error.code]).toEqual([400, -32020])
    const params = { taskId, _meta: META_2026(WITH_TASKS) }
    const missing = await rpc((r) => handler(r), 'tasks/cancel', params, { headers: modernHeaders('tasks/cancel', {}) })
    expect([missing.status, missing.body.error.code]).toEqual([400, -32020])
    expect(missing.body.error.message).toContain('Mcp-Name')
  })

  it('answers -32602 for unknown, malformed and missing ids (HTTP 200), without asking the store for a malformed one', async () => {
    const store = memoryTaskStore()
    let reads = 0
    const { call } = setup({ extensions: [tasks({ store: { ...store, get: (id) => (reads++, store.get(id)) } })] })
    for (const taskId of ['tasks-conformance-nonexistent-12345', 'AAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await call('tasks/get', { taskId })
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([200, -32602, `Unknown task: ${taskId}`])
    }
    expect(reads).toBe(1)
    const none = await call('tasks/get', {})
    expect(none.body.error).toMatchObject({ code: -32602, message: 'params.taskId must be a string' })
  })

  it('treats invalid arguments as a tool error, without making a task', async () => {
    const { result } = setup()
    const res = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 'soon' } })
    expect(res).toMatchObject({ resultType: 'complete', isError: true })
    expect(res.content[0].text).toContain('Invalid arguments for tool slow_compute')
  })

  it('ends completed with isError for a tool error, failed with the JSON-RPC error for a protocol error', async () => {
    const { result, status } = setup()
    const toolError = await status((await result('tools/call', { name: 'failing_job', arguments: {} })).taskId, ['completed', 'failed'])
    expect(toolError).toMatchObject({ status: 'completed', result: { isError: true, content: [{ type: 'text', text: 'The job failed, as it always does' }] } })
    const protocol = await status((await result('tools/call', { name: 'protocol_error_job', arguments: {} })).taskId, ['completed', 'failed'])
    expect(protocol).toMatchObject({ status: 'failed', error: { code: -32603, message: 'The job hit a protocol error, as it always does' } })
    expect(protocol).not.toHaveProperty('result')
  })

  it('keeps a task readable for ttlMs after it ends, then answers as for an unknown id', async () => {
    const { result, call, status } = setup({ extensions: [tasks({ ttlMs: 300 })] })
    const { taskId } = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } })
    await status(taskId, ['completed'])
    await new Promise((r) => setTimeout(r, 150))
    expect((await result('tasks/get', { taskId })).status).toBe('completed')
    await new Promise((r) => setTimeout(r, 300))
    expect((await call('tasks/get', { taskId })).body.error).toMatchObject({ code: -32602 })
  })

  it('rejects settings that are not positive integers at start-up', () => {
    for (const options of [{ ttlMs: 0 }, { pollIntervalMs: 1.5 }, { leaseMs: -1 }]) {
      expect(() => tasks(options)).toThrow(/must be a positive integer/)
    }
  })
})

describe('tasks: principals', () => {
  it("answers another principal's get, update and cancel as if the task did not exist, and leaves the task alone", async () => {
    const { call } = setup({ auth: bearerAuth(namedUsers()) })
    const alice = as('alice')
    const created = await call('tools/call', { name: 'confirm_delete', arguments: { filename: 'a' } }, undefined, alice)
    const taskId = created.body.result.taskId
    for (const [method, extra] of [['tasks/get', {}], ['tasks/update', { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }], ['tasks/cancel', {}]] as const) {
      for (const who of [as('bob'), as('alice.evil')]) {
        const res = await call(method, { taskId, ...extra }, undefined, who)
        expect([method, res.body.error]).toEqual([method, { code: -32602, message: `Unknown task: ${taskId}` }])
      }
    }
    const own = await call('tasks/get', { taskId }, undefined, alice)
    expect(own.body.result.status).toBeOneOf(['working', 'input_required'])
  })
})

describe('tasks: input', () => {
  it('parks on input, takes answers a key at a time (ignoring unknown keys), and resumes once all are in', async () => {
    const { result, call, status } = setup()
    const { taskId } = await result('tools/call', { name: 'multi_input', arguments: {} })
    const parked = await status(taskId, ['input_required'])
    expect(Object.keys(parked.inputRequests).sort()).toEqual(['first', 'second'])
    expect(parked.inputRequests.first).toMatchObject({ method: 'elicitation/create', params: { message: 'First name?' } })
    const bad = await call('tasks/update', { taskId, inputResponses: { first: { action: 'maybe' } } })
    expect(bad.body.error).toMatchObject({ code: -32602, message: 'inputResponses["first"] is not a valid elicitation/create result' })
    expect(await result('tasks/update', { taskId, inputResponses: { first: { action: 'accept', content: { name: 'Ada' } }, 'unknown-key': { ignored: true } } }))
      .toEqual({ resultType: 'complete', _meta: expect.any(Object) })
    const half = await result('tasks/get', { taskId })
    expect(half.status).toBe('input_required')
    expect(Object.keys(half.inputRequests)).toEqual(['second'])
    await result('tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { name: 'Lovelace' } } } })
    const done = await status(taskId, ['completed'])
    expect(done.result.content[0].text).toBe('Got "Ada" and "Lovelace"')
    // Answers to a task that no longer waits are acknowledged and change nothing.
    await result('tasks/update', { taskId, inputResponses: { first: { action: 'decline' } } })
    expect((await result('tasks/get', { taskId })).result).toEqual(done.result)
  })

  it('settles beforeTask input over input_required rounds of the call, then carries the answers into the task', async () => {
    const { result, status } = setup()
    const first = await result('tools/call', { name: 'test_tool_with_task', arguments: {} })
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } })
    expect(first).not.toHaveProperty('taskId')
    const created = await result('tools/call', {
      name: 'test_tool_with_task', arguments: {}, requestState: first.requestState, inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    })
    expect(created).toMatchObject({ resultType: 'task', status: 'working' })
    expect(created).not.toHaveProperty('requestState')
    const done = await status(created.taskId, ['completed', 'input_required'])
    expect(done.result.content[0].text).toBe('Hello from the task, Alice!')
  })

  it('returns a tool error of beforeTask as the call result, making no task', async () => {
    const server = new McpServer({ name: 'b', version: '1' }).tool('guarded', {
      task: 'required', beforeTask: async (_a, ctx) => ((await ctx.elicit('go', FORM('Go?'))).action === 'accept' ? undefined : { content: [{ type: 'text', text: 'declined' }], isError: true }),
    }, () => 'ran')
    const { result } = setup({}, server)
    const first = await result('tools/call', { name: 'guarded', arguments: {} })
    const declined = await result('tools/call', { name: 'guarded', arguments: {}, requestState: first.requestState, inputResponses: { go: { action: 'decline' } } })
    expect(declined).toMatchObject({ resultType: 'complete', isError: true, content: [{ text: 'declined' }] })
  })

  it('fails the task with -32021 when it asks for input the creating request did not declare it could give', async () => {
    const { result, status } = setup()
    const { taskId } = await result('tools/call', { name: 'confirm_delete', arguments: {} }, { extensions: { [TASKS]: {} } })
    const failed = await status(taskId, ['failed', 'input_required'])
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } } })
  })
})

describe('tasks: cancellation, leases, deadlines and shutdown', () => {
  it('cancels: an empty ack, cancelled at once, the handler aborted; the same ack again on the terminal task', async () => {
    const { server, aborted, started } = waitingServer()
    const { result } = setup({}, server)
    const { taskId } = await result('tools/call', { name: 'wait', arguments: {} })
    await started.promise
    const ack = await result('tasks/cancel', { taskId })
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType'])
    expect((await aborted.promise as Error).message).toBe('The task was cancelled')
    expect(await result('tasks/get', { taskId })).toMatchObject({ status: 'cancelled', statusMessage: "Cancelled at the client's request" })
    expect(Object.keys(await result('tasks/cancel', { taskId })).sort()).toEqual(['_meta', 'resultType'])
    // The handler's rejection after the cancel does not overwrite the terminal state.
    await new Promise((r) => setTimeout(r, 20))
    expect((await result('tasks/get', { taskId })).status).toBe('cancelled')
  })

  it('aborts the runner at once when another instance sharing the store and backplane cancels the task', async () => {
    const { server, aborted, started } = waitingServer()
    const store = memoryTaskStore()
    const backplane = memoryBackplane()
    const shared = { extensions: [tasks({ store, leaseMs: 600_000 })], backplane }
    const a = setup(shared, server)
    const b = setup(shared, server)
    const { taskId } = await a.result('tools/call', { name: 'wait', arguments: {} })
    await started.promise
    await b.result('tasks/cancel', { taskId })
    expect((await aborted.promise as Error).message).toBe('The task was cancelled')
    expect((await a.result('tasks/get', { taskId })).status).toBe('cancelled')
  })

  it('fails a task whose runner stopped renewing its lease (a process that died), on the next read', async () => {
    const store = memoryTaskStore()
    const { result } = setup({ extensions: [tasks({ store })] })
    const now = Date.now()
    const orphan: TaskRecord = {
      id: 'BBBBBBBBBBBBBBBBBBBBBB', owner: '', version: 1, status: 'working', createdAt: now - 5000, updatedAt: now - 5000, expiresAt: now + 60_000,
      pollIntervalMs: 1000, work: { tool: 'slow_compute', arguments: { seconds: 9 }, version: '2026-07-28', client: { capabilities: {} } },
      answers: {}, memo: {}, lease: { holder: 'a-process-that-died', until: now - 1 },
    }
    await store.create(orphan)
    const lost = await result('tasks/get', { taskId: orphan.id })
    expect(lost).toMatchObject({ status: 'failed', error: { code: -32603 } })
    expect(lost.error.message).toMatch(/runner stopped before finishing/)
  })

  it('keeps a live runner by renewing its lease: a task longer than the lease completes', async () => {
    const { result, status } = setup({ extensions: [tasks({ leaseMs: 150 })] })
    const { taskId } = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } })
    // Its own result: a runner that lost its lease would be aborted and end with an isError result instead.
    expect((await status(taskId, ['completed', 'failed'])).result).toEqual({ content: [{ type: 'text', text: 'Computed result in 1s' }] })
  })

  it('fails a task still running at the platform deadline, saying so, and aborts its handler', async () => {
    const { server, aborted, started } = waitingServer()
    const { call, result } = setup({}, server)
    const res = await call('tools/call', { name: 'wait', arguments: {} }, undefined, undefined, { deadline: Date.now() + 200 })
    await started.promise
    await aborted.promise
    const task = await result('tasks/get', { taskId: res.body.result.taskId })
    expect(task).toMatchObject({ status: 'failed', error: { code: -32603, message: 'The task ran out of time: the platform stops the invocation that ran it' } })
  })

  it('fails the tasks running here on shutdown, with the reason, and aborts them', async () => {
    const { server, aborted, started } = waitingServer()
    const store = memoryTaskStore()
    const { result, handler } = setup({ extensions: [tasks({ store })] }, server)
    const { taskId } = await result('tools/call', { name: 'wait', arguments: {} })
    await started.promise
    await handler.close()
    await aborted.promise
    expect(await store.get(taskId)).toMatchObject({ status: 'failed', error: { message: 'The server shut down while the task ran' } })
  })

  it('reports a handler that throws an unexpected error as a tool error with an error id, and onError hears it', async () => {
    const seen: unknown[] = []
    const server = new McpServer({ name: 'x', version: '1' }).tool('boom', { task: 'required' }, () => {
      throw new Error('secret connection string')
    })
    const { result, status } = setup({ onError: (e) => seen.push(e) }, server)
    const done = await status((await result('tools/call', { name: 'boom', arguments: {} })).taskId, ['completed', 'failed'])
    expect(done.result).toMatchObject({ isError: true })
    expect(done.result.content[0].text).toMatch(/^Tool boom failed unexpectedly \(error id [0-9a-f]{8}\)$/)
    expect(seen).toHaveLength(1)
  })

  it('fails with -32602 when the tool is gone by the time the task runs again', async () => {
    const server = createEverythingServer()
    const { result, status } = setup({}, server)
    const { taskId } = await result('tools/call', { name: 'confirm_delete', arguments: {} })
    await status(taskId, ['input_required'])
    server.remove('tool', 'confirm_delete')
    await result('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } })
    expect(await status(taskId, ['failed'])).toMatchObject({ error: { code: -32602, message: 'Unknown tool: confirm_delete' } })
  })
})

describe('tasks: notifications on listen', () => {
  it("relays the task's changes as notifications/tasks with the DetailedTask, to its owner only", async () => {
    const gate = deferred()
    const server = new McpServer({ name: 'n', version: '1' }).tool('gated', { task: 'required' }, async (_a, ctx) => {
      await gate.promise
      const answer = await ctx.elicit('confirm', FORM('Delete?'))
      return answer.action === 'accept' ? 'Deleted f' : 'Kept f'
    })
    const { handler, result } = setup({ auth: bearerAuth(namedUsers()) }, server)
    const wire = recordingFetch((r) => handler(r))
    const alice = as('alice')
    const created = await result('tools/call', { name: 'gated', arguments: {} }, undefined, alice)
    const taskId = created.taskId
    const mine = await openListen(wire.fetch, { taskIds: [taskId, taskId] }, 7, WITH_TASKS, alice)
    const theirs = await openListen(wire.fetch, { taskIds: [taskId] }, 8, WITH_TASKS, as('bob'))
    expect((await mine.next()).params.notifications).toEqual({ taskIds: [taskId] })
    await theirs.next()
    gate.resolve()
    const parked = await mine.next()
    expect(parked).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'input_required', inputRequests: { confirm: {} }, _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } })
    await result('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept' } } }, undefined, alice)
    expect((await mine.next()).params.status).toBe('working')
    const done = await mine.next()
    expect(done.params).toMatchObject({ status: 'completed', result: { content: [{ text: 'Deleted f' }] } })
    // Bob's stream got nothing but its ack: the next thing on it is its end.
    const bobNext = Promise.race([theirs.next(), new Promise((r) => setTimeout(() => r('nothing'), 100))])
    expect(await bobNext).toBe('nothing')
    await mine.cancel()
    await theirs.cancel()
    await wire.settled()
    expect(wire.violations).toEqual([])
  })

  it('refuses taskIds to a client without the extension (-32021, 400) and malformed ones (-32602)', async () => {
    const { handler } = setup()
    const send = (notifications: unknown, caps: Record<string, unknown>) => {
      const params = { notifications, _meta: META_2026(caps) }
      return handler(new Request('http://127.0.0.1/mcp', {
        method: 'POST', headers: modernHeaders('subscriptions/listen', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params }),
      }))
    }
    const undeclared = await send({ taskIds: ['x'] }, {})
    expect(undeclared.status).toBe(400)
    expect((await undeclared.json()).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } })
    expect((await (await send({ taskIds: 'x' }, WITH_TASKS)).json()).error).toMatchObject({ code: -32602 })
    expect((await (await send({ taskIds: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, WITH_TASKS)).json()).error).toMatchObject({ code: -32602 })
  })
})

describe('tasks: errors are JSON-RPC errors', () => {
  it('answers a store that fails with -32603 and an error id, never a 500', async () => {
    const seen: unknown[] = []
    const { call } = setup({ extensions: [tasks({ store: { create: async () => { throw new Error('store down') }, get: async () => { throw new McpError(-32603, 'x') }, put: async () => false } })], onError: (e) => seen.push(e) })
    const res = await call('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } })
    expect(res.status).toBe(200)
    expect(res.body.error.message).toMatch(/^Internal error \(error id [0-9a-f]{8}\)$/)
    expect(seen).toHaveLength(1)
  })
})
