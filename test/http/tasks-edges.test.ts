/**
 * The edges of the tasks extension that the main suites (tasks.test.ts, tasks-seed.test.ts) pass by: what
 * happens without a backplane, under conflicting writes, when the store loses a task, at shutdown and near a
 * deadline; what an update that answers nothing changes; what listen streams hear and do not hear; and the
 * seed draft's waits and refusals. All through the fetch handler; every answer is checked against the wire
 * schema by `rpc`.
 */
import { describe, expect, it } from 'vitest'
import { type Backplane, bearerAuth, createFetchHandler, type ErrorContext, McpServer, memoryBackplane, memoryTaskStore, resumable, type RuntimeContext, TASKS, tasks, type TaskStore } from '../../src/index.js'
import { createRuntime, tasksOf } from '../../src/core.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { deferred, until } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, openListen, rpc } from '../helpers/server.js'
import { FORM, handlerPool, SEED_META, waitingServer, silentBackplane, TASK_CAPABILITIES, taskClient } from '../helpers/tasks.js'

const instance = handlerPool()

/** A request of a seed-draft client. */
const seed = (handler: (r: Request) => Promise<Response>, method: string, params: Record<string, unknown>) =>
  rpc(handler, method, { ...params, _meta: { ...SEED_META(), ...(params._meta as object) } })

describe('tasks: which calls become tasks', () => {
  it('runs a tool without task support as a plain call, even for a client that declared the extension', async () => {
    const client = taskClient(instance())
    const { result } = await client.send('tools/call', { name: 'greet', arguments: { name: 'Ada' } })
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] })
    expect(result).not.toHaveProperty('taskId')
  })

  it('answers a new task with ttlMs of its retention and its lease together', async () => {
    const client = taskClient(instance({ extensions: [tasks({ ttlMs: 120_000, leaseMs: 30_000 })] }))
    const { result } = await client.send('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } })
    expect(result!.ttlMs).toBe(150_000)
  })

  it('refuses to start a server with a task tool unless tasks() is among its extensions, naming the tool', () => {
    const server = new McpServer({ name: 't', version: '1' }).tool('plain', {}, () => 'plain').tool('report', { task: 'optional' }, () => 'done')
    const refusal = 'tool "report" is declared with `task`, but tasks are not served: add tasks() to the extensions'
    expect(() => createFetchHandler(server)).toThrow(refusal)
    expect(() => createFetchHandler(server, { extensions: [resumable()] })).toThrow(refusal)
    expect(createFetchHandler(server, { extensions: [tasks()] }).summary.tasks).toBe('memory')
    // Without a task tool, nothing is asked for and tasks are not served.
    expect(createFetchHandler(new McpServer({ name: 'p', version: '1' }).tool('plain', {}, () => 'plain')).summary.tasks).toBeUndefined()
  })

  it('names the setting it refuses at start-up', () => {
    for (const name of ['ttlMs', 'pollIntervalMs', 'leaseMs']) {
      expect(() => createFetchHandler(createEverythingServer(), { extensions: [tasks({ [name]: 0 })] })).toThrow(`tasks.${name} must be a positive integer (ms)`)
    }
  })

  it('hands the handler the principal and identity that made the task, and none for an anonymous one', async () => {
    const server = new McpServer({ name: 'p', version: '1' })
      .tool('who', { task: 'required' }, (_a, ctx) => `${ctx.method} by ${String(ctx.principal)} (${ctx.auth?.subject})`)
    const runs = [[instance({ auth: bearerAuth(namedUsers()) }, server), as('alice'), 'tools/call by alice (alice)'], [instance({}, server), {}, 'tools/call by undefined (undefined)']] as const
    for (const [handler, headers, text] of runs) {
      const client = taskClient(handler, headers)
      const done = await client.waitFor(await client.start('who'), ['completed', 'failed'])
      expect(done.result.content[0].text).toBe(text)
    }
  })
})

describe('tasks: input', () => {
  it('refuses tasks/update without inputResponses (-32602)', async () => {
    const client = taskClient(instance())
    const taskId = await client.start('confirm_delete')
    await client.waitFor(taskId, ['input_required'])
    const { error } = await client.send('tasks/update', { taskId })
    expect(error).toMatchObject({ code: -32602, message: 'params.inputResponses must be an object keyed by input request' })
  })

  it('acknowledges an update that answers nothing outstanding, and leaves the task exactly as it was', async () => {
    const client = taskClient(instance())
    const taskId = await client.start('multi_input')
    const { _meta: _, ...parked } = await client.waitFor(taskId, ['input_required'])
    await new Promise((r) => setTimeout(r, 5))
    expect((await client.update(taskId, { third: { action: 'accept', content: { name: 'x' } } })).result).toEqual({ resultType: 'complete', _meta: expect.any(Object) })
    const { _meta: __, ...after } = (await client.get(taskId)).result!
    expect(after).toEqual(parked)
  })

  it('keeps what the handler memoised across the runs of its task', async () => {
    let computed = 0
    const server = new McpServer({ name: 'm', version: '1' }).tool('memo', { task: 'required' }, async (_a, ctx) => {
      const value = await ctx.memo('value', () => ++computed)
      const answer = await ctx.elicit('ok', FORM('OK?'))
      // Runs on a while after resuming: the reads meanwhile must find it leased, not lost.
      await new Promise((r) => setTimeout(r, 200))
      return `value ${value}, ${answer.action}`
    })
    const client = taskClient(instance({}, server))
    const taskId = await client.start('memo')
    await client.waitFor(taskId, ['input_required'])
    await client.update(taskId, { ok: { action: 'accept', content: { ok: true } } })
    const done = await client.waitFor(taskId, ['completed', 'failed'])
    expect([done.result.content[0].text, computed]).toEqual(['value 1, accept', 1])
  })
})

describe('tasks: a cancelled task stays cancelled', () => {
  it('does not park a cancelled task whose handler asks for input after all', async () => {
    const gate = deferred()
    const asked = deferred()
    const server = new McpServer({ name: 'c', version: '1' }).tool('stubborn', { task: 'required' }, async (_a, ctx) => {
      await gate.promise
      asked.resolve()
      return (await ctx.elicit('ok', FORM('OK?'))).action
    })
    const client = taskClient(instance({}, server))
    const taskId = await client.start('stubborn')
    await client.cancel(taskId)
    gate.resolve()
    await asked.promise
    await new Promise((r) => setTimeout(r, 50))
    const task = (await client.get(taskId)).result!
    expect(task.status).toBe('cancelled')
    expect(task).not.toHaveProperty('inputRequests')
  })
})

describe('tasks: cancellation without a backplane, conflicts and a store that loses the task', () => {
  it('aborts the runner here at once on tasks/cancel, though the backplane carries nothing', async () => {
    const { server, aborted, started } = waitingServer()
    const client = taskClient(instance({ backplane: silentBackplane(), extensions: [tasks({ leaseMs: 600_000 })] }, server))
    const taskId = await client.start('wait')
    await started.promise
    await client.cancel(taskId)
    expect((await aborted.promise as Error).message).toBe('The task was cancelled')
  })

  it('aborts the runner here at once on a seed-draft tasks/cancel, though the backplane carries nothing', async () => {
    const { server, aborted, started } = waitingServer()
    const handler = instance({ backplane: silentBackplane(), extensions: [tasks({ leaseMs: 600_000 })] }, server)
    const { task } = (await seed(handler, 'tools/call', { name: 'wait', arguments: {}, task: {} })).body.result
    await started.promise
    expect((await seed(handler, 'tasks/cancel', { taskId: task.taskId })).body.result).toMatchObject({ status: 'cancelled' })
    expect((await aborted.promise as Error).message).toBe('The task was cancelled')
  })

  it('stops a runner at its next lease renewal when another instance, sharing only the store, cancelled the task', async () => {
    const { server, aborted, started } = waitingServer()
    const store = memoryTaskStore()
    const a = taskClient(instance({ extensions: [tasks({ store, leaseMs: 90 })] }, server))
    const b = taskClient(instance({ extensions: [tasks({ store, leaseMs: 90 })] }, server))
    const taskId = await a.start('wait')
    await started.promise
    await b.cancel(taskId)
    expect((await aborted.promise as Error).message).toBe('The task was cancelled')
    expect((await a.get(taskId)).result).toMatchObject({ status: 'cancelled' })
  })

  it('completes a task that outlives its lease many times over with its own result', async () => {
    const client = taskClient(instance({ extensions: [tasks({ leaseMs: 60 })] }))
    const done = await client.waitFor(await client.start('slow_compute', { seconds: 1, label: 'long' }), ['completed', 'failed'])
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Computed long in 1s' }] } })
    expect(done.result).not.toHaveProperty('isError')
  })

  it('stops a runner at its next lease renewal when the store no longer has its task', async () => {
    const { server, aborted, started } = waitingServer()
    const inner = memoryTaskStore()
    let lost = false
    const store: TaskStore = { ...inner, get: async (id) => (lost ? undefined : inner.get(id)) }
    const client = taskClient(instance({ extensions: [tasks({ store, leaseMs: 90 })] }, server))
    await client.start('wait')
    await started.promise
    lost = true
    expect((await aborted.promise as Error).message).toBe('The task has ended (gone)')
  })

  it('reads the task again after a conflicting write, and still cancels it', async () => {
    const inner = memoryTaskStore()
    let conflicts = 0
    const store: TaskStore = { ...inner, put: async (task) => (conflicts > 0 ? (conflicts--, false) : inner.put(task)) }
    const client = taskClient(instance({ extensions: [tasks({ store, leaseMs: 600_000 })] }))
    const taskId = await client.start('slow_compute', { seconds: 60 })
    conflicts = 2
    await client.cancel(taskId)
    expect(conflicts).toBe(0)
    expect((await client.get(taskId)).result).toMatchObject({ status: 'cancelled' })
  })

  it('gives up on a store that never takes a write: -32603 with an error id, not a hang', async () => {
    const seen: unknown[] = []
    const inner = memoryTaskStore()
    let broken = false
    let refused = 0
    const store: TaskStore = { ...inner, put: async (task) => (broken ? (refused++, false) : inner.put(task)) }
    const client = taskClient(instance({ extensions: [tasks({ store, leaseMs: 600_000 })], onError: (e) => seen.push(e) }, waitingServer().server))
    const taskId = await client.start('wait')
    broken = true
    const { error } = await client.cancel(taskId)
    broken = false
    expect(refused).toBe(50)
    expect(error?.message).toMatch(/^Internal error \(error id [0-9a-f]{8}\)$/)
    expect(seen.map((e) => (e as Error).message)).toContain(`task ${taskId} kept changing under 50 attempts to write it`)
  })
})

describe('tasks: the platform around the runner', () => {
  it('completes a task that ends before the platform deadline', async () => {
    const handler = instance()
    const client = taskClient((r) => handler(r, { deadline: Date.now() + 5000 }))
    const done = await client.waitFor(await client.start('slow_compute', { seconds: 0, label: 'early' }), ['completed', 'failed'])
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Computed early in 0s' }] } })
  })

  it('hands the runner to waitUntil, which settles once the task has ended', async () => {
    const kept: Promise<unknown>[] = []
    const gate = deferred()
    const server = new McpServer({ name: 'k', version: '1' }).tool('gated', { task: 'required' }, async () => {
      await gate.promise
      return 'done'
    })
    const handler = instance({}, server)
    const platform: RuntimeContext = { waitUntil: (p) => void kept.push(p) }
    const client = taskClient((r) => handler(r, platform))
    const taskId = await client.start('gated')
    const settled = Promise.all(kept)
    gate.resolve()
    await settled
    expect((await taskClient(handler).get(taskId)).result).toMatchObject({ status: 'completed' })
  })

  it('reports a publish that fails and completes the task all the same', async () => {
    const seen: ErrorContext[] = []
    const inner = memoryBackplane()
    const backplane = { ...inner, publish: async () => { throw new Error('backplane down') }, subscribe: inner.subscribe.bind(inner) }
    const client = taskClient(instance({ backplane, onError: (_e, context) => seen.push(context) }))
    const done = await client.waitFor(await client.start('slow_compute', { seconds: 0 }), ['completed', 'failed'])
    expect(done.status).toBe('completed')
    expect(seen.map((c) => c.during)).toContain('task publish')
  })
})

describe('tasks: a store that runs tasks itself', () => {
  it('runs a task for the holder of its lease only: a start naming another holder runs nothing', async () => {
    let runs = 0
    const server = new McpServer({ name: 'r', version: '1' }).tool('count', { task: 'required' }, () => `run ${++runs}`)
    // Like the task objects of Workers: start() asks for a run, which the store serves later where the task lives.
    const starts: { id: string; holder: string }[] = []
    const store: TaskStore = { ...memoryTaskStore(), start: async (id, holder) => void starts.push({ id, holder }) }
    const client = taskClient(instance({ extensions: [tasks({ store })] }, server))
    const taskId = await client.start('count')
    expect(starts).toEqual([{ id: taskId, holder: expect.any(String) }])
    // Where the store runs it: a runtime of its own over the same records.
    const there = createRuntime(server, { extensions: [tasks({ store })] })
    const runner = tasksOf(there)!.work
    // A start delivered late, or twice, after the task was leased to another run: that run is the task's.
    await runner.run(there, taskId, 'an-earlier-holder', {})
    expect(runs).toBe(0)
    expect((await client.get(taskId)).result).toMatchObject({ status: 'working' })
    await runner.run(there, taskId, starts[0]!.holder, {})
    expect(runs).toBe(1)
    expect((await client.get(taskId)).result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'run 1' }] } })
    await there.close()
  })
})

describe('tasks: failures around the runner are reported', () => {
  it('reports a store that fails under a running task, at its renewals', async () => {
    const seen: ErrorContext[] = []
    const inner = memoryTaskStore()
    let failing = false
    const store: TaskStore = { ...inner, get: async (id) => { if (failing) throw new Error('store down'); return inner.get(id) } }
    const { server, started } = waitingServer()
    const client = taskClient(instance({ extensions: [tasks({ store, leaseMs: 30 })], onError: (_e, context) => seen.push(context) }, server))
    const running = await client.start('wait')
    await started.promise
    failing = true
    await until(() => seen.some((c) => c.during === 'task lease' && c.requestId === running), 5000, 'a failed renewal reported')
    failing = false
  })

  it('reports a backplane that fails to publish, or to close a watch, and completes the tasks all the same', async () => {
    const seen: ErrorContext[] = []
    const inner = memoryBackplane()
    const backplane: Backplane = {
      publish: async () => { throw new Error('backplane down') },
      subscribe: async (topics, listener) => {
        const subscription = await inner.subscribe(topics, listener)
        return { close: async () => { await subscription.close(); throw new Error('close failed') } }
      },
    }
    const handler = instance({ backplane, extensions: [tasks({ pollIntervalMs: 50 })], onError: (_e, context) => seen.push(context) })
    const done = await taskClient(handler).waitFor(await taskClient(handler).start('slow_compute', { seconds: 0 }), ['completed', 'failed'])
    expect(done.status).toBe('completed')
    const { task } = (await seed(handler, 'tools/call', { name: 'failing_job', arguments: {}, task: {} })).body.result
    expect((await seed(handler, 'tasks/result', { taskId: task.taskId })).body.result).toMatchObject({ isError: true })
    expect(new Set(seen.map((c) => c.during))).toEqual(new Set(['task publish', 'task watch close', 'tasks/result close']))
  })

  it('reports a backplane that fails to subscribe the runner, and completes the task all the same', async () => {
    const seen: ErrorContext[] = []
    const backplane: Backplane = { ...silentBackplane(), subscribe: async () => { throw new Error('no subscriptions') } }
    const client = taskClient(instance({ backplane, onError: (_e, context) => seen.push(context) }))
    const taskId = await client.start('slow_compute', { seconds: 0 })
    expect((await client.waitFor(taskId, ['completed', 'failed'])).status).toBe('completed')
    expect(seen).toContainEqual(expect.objectContaining({ during: 'task watch', requestId: taskId }))
  })

  it('aborts the handler at the deadline saying why, and reports a store that cannot record it', async () => {
    const seen: ErrorContext[] = []
    const inner = memoryTaskStore()
    let failing = false
    const store: TaskStore = { ...inner, put: async (task) => { if (failing) throw new Error('store down'); return inner.put(task) } }
    const { server, started, aborted } = waitingServer()
    const handler = instance({ extensions: [tasks({ store })], onError: (_e, context) => seen.push(context) }, server)
    const client = taskClient((r) => handler(r, { deadline: Date.now() + 150 }))
    const taskId = await client.start('wait')
    await started.promise
    failing = true
    expect((await aborted.promise as Error).message).toBe('The invocation running the task reached its deadline')
    await until(() => seen.some((c) => c.during === 'task deadline' && c.requestId === taskId), 5000, 'the deadline failure reported')
    failing = false
  })
})

describe('tasks: shutdown', () => {
  // Without a backplane: with one, the runner hears of the failed status first and aborts for that.
  it('tells the handlers it aborts why, and leaves a task that waits for input as it was', async () => {
    const { server, aborted, started } = waitingServer()
    server.tool('ask', { task: 'required' }, async (_a, ctx) => (await ctx.elicit('ok', FORM('OK?'))).action)
    const store = memoryTaskStore()
    const handler = instance({ extensions: [tasks({ store })], backplane: silentBackplane() }, server)
    const client = taskClient(handler)
    const parkedId = await client.start('ask')
    const parked = await client.waitFor(parkedId, ['input_required'])
    await client.start('wait')
    await started.promise
    await handler.close()
    expect((await aborted.promise as Error).message).toBe('The server is shutting down')
    expect(await store.get(parkedId)).toMatchObject({ status: 'input_required', inputRequests: parked.inputRequests })
  })
})

describe('tasks: shutdown with a failing store', () => {
  it('aborts the handlers all the same, and reports what it could not record', async () => {
    const seen: ErrorContext[] = []
    const inner = memoryTaskStore()
    let failing = false
    const store: TaskStore = { ...inner, put: async (task) => { if (failing) throw new Error('store down'); return inner.put(task) } }
    const { server, aborted, started } = waitingServer()
    const handler = instance({ extensions: [tasks({ store })], backplane: silentBackplane(), onError: (_e, context) => seen.push(context) }, server)
    const taskId = await taskClient(handler).start('wait')
    await started.promise
    failing = true
    await handler.close()
    expect((await aborted.promise as Error).message).toBe('The server is shutting down')
    expect(seen).toContainEqual(expect.objectContaining({ during: 'task shutdown', requestId: taskId }))
  })
})

describe('tasks: notifications on listen', () => {
  it('relays a partial answer with the requests still outstanding, and only the changes of the tasks asked for', async () => {
    const handler = instance()
    const client = taskClient(handler)
    const taskId = await client.start('multi_input')
    await client.waitFor(taskId, ['input_required'])
    const stream = await openListen(handler, { taskIds: [taskId] }, 'l', TASK_CAPABILITIES)
    await stream.next()
    // Another task of the same owner changes meanwhile: not asked for, not heard.
    const other = await client.start('slow_compute', { seconds: 0 })
    await client.waitFor(other, ['completed'])
    await client.update(taskId, { first: { action: 'accept', content: { name: 'Ada' } } })
    const partial = await stream.next()
    expect(partial).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'input_required' } })
    expect(Object.keys(partial.params.inputRequests)).toEqual(['second'])
    await stream.cancel()
  })

  it('does not relay lease renewals: a running task is heard of when its status changes', async () => {
    const gate = deferred()
    const server = new McpServer({ name: 'g', version: '1' }).tool('gated', { task: 'required' }, async () => {
      await gate.promise
      return 'done'
    })
    const handler = instance({ extensions: [tasks({ leaseMs: 30 })] }, server)
    const client = taskClient(handler)
    const taskId = await client.start('gated')
    const stream = await openListen(handler, { taskIds: [taskId] }, 'l', TASK_CAPABILITIES)
    await stream.next()
    // Several renewals (every 10 ms) go by before the task ends.
    await new Promise((r) => setTimeout(r, 100))
    gate.resolve()
    expect((await stream.next()).params).toMatchObject({ taskId, status: 'completed' })
    await stream.cancel()
  })

  it('takes up to 1000 task ids within the filter budget, and says why it refuses more, longer, or anything but task ids', async () => {
    const handler = instance({ listen: { maxFilterChars: 22_000 } })
    const ids = Array.from({ length: 1000 }, (_, i) => String(i).padStart(22, 'A'))
    const stream = await openListen(handler, { taskIds: ids }, 'l', TASK_CAPABILITIES)
    expect((await stream.next()).params.notifications.taskIds).toHaveLength(1000)
    await stream.cancel()
    const refusal = async (taskIds: unknown[]) => {
      const params = { notifications: { taskIds }, _meta: META_2026(TASK_CAPABILITIES) }
      const res = await rpc(handler, 'subscriptions/listen', params, { headers: modernHeaders('subscriptions/listen', params) })
      return [res.status, res.body.error?.code, res.body.error?.message]
    }
    const notIds = 'notifications.taskIds must be an array of task ids'
    expect(await refusal(['AAAAAAAAAAAAAAAAAAAAAA', 5])).toEqual([200, -32602, notIds])
    // An id of another shape cannot name a task: refused, not held (the attack: 1,000 ids of 3.9 KB each).
    expect(await refusal(['AAAAAAAAAAAAAAAAAAAAAA', 'A'.repeat(3900)])).toEqual([200, -32602, notIds])
    expect(await refusal(['AAAAAAAAAAAAAAAAAAAAA'])).toEqual([200, -32602, notIds])
    expect(await refusal([...ids, 'BBBBBBBBBBBBBBBBBBBBBB'])).toEqual([200, -32602, 'notifications.taskIds may name at most 1000 task ids'])
    const small = instance({ listen: { maxFilterChars: 21_999 } })
    const params = { notifications: { taskIds: ids }, _meta: META_2026(TASK_CAPABILITIES) }
    const over = await rpc(small, 'subscriptions/listen', params, { headers: modernHeaders('subscriptions/listen', params) })
    expect([over.status, over.body.error?.message]).toEqual([200, 'notifications.taskIds may name at most 21999 characters of task ids'])
    const undeclared = { notifications: { taskIds: ['AAAAAAAAAAAAAAAAAAAAAA'] }, _meta: META_2026({}) }
    const needs = await rpc(handler, 'subscriptions/listen', undeclared, { headers: modernHeaders('subscriptions/listen', undeclared) })
    expect(needs.body.error).toMatchObject({ code: -32021, message: `notifications.taskIds needs the ${TASKS} extension declared` })
  })
})

describe('tasks: the seed draft’s methods at 2026-07-28', () => {
  it('answers -32601 (404) to a client without the extension, not a demand to declare it', async () => {
    const handler = instance()
    for (const method of ['tasks/result', 'tasks/list', 'tasks/input_response']) {
      const res = await rpc(handler, method, { taskId: 'AAAAAAAAAAAAAAAAAAAAAA', inputResponses: {}, _meta: META_2026({}) })
      expect([method, res.status, res.body.error.code]).toEqual([method, 404, -32601])
    }
  })
})

describe('seed draft core tasks: waits and refusals', () => {
  it('answers tasks/result at once for a task that has already ended, whatever the poll interval', async () => {
    const handler = instance({ extensions: [tasks({ pollIntervalMs: 5000 })] })
    const { task } = (await seed(handler, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: {} })).body.result
    for (let status = ''; status !== 'completed'; await new Promise((r) => setTimeout(r, 10))) {
      status = (await seed(handler, 'tasks/get', { taskId: task.taskId })).body.result.status
    }
    const started = Date.now()
    expect((await seed(handler, 'tasks/result', { taskId: task.taskId })).body.result.content[0].text).toBe('Computed result in 0s')
    expect(Date.now() - started).toBeLessThan(2500)
    const waiting = (await seed(handler, 'tools/call', { name: 'confirm_delete', arguments: {}, task: {} })).body.result.task
    for (let status = ''; status !== 'input_required'; await new Promise((r) => setTimeout(r, 10))) {
      status = (await seed(handler, 'tasks/get', { taskId: waiting.taskId })).body.result.status
    }
    const asked = Date.now()
    expect((await seed(handler, 'tasks/result', { taskId: waiting.taskId })).body.result).toMatchObject({ resultType: 'input_required' })
    expect(Date.now() - asked).toBeLessThan(2500)
  })

  it('keeps a tasks/result waiting through polls until the task stops: here, to ask for input', async () => {
    const gate = deferred()
    const server = new McpServer({ name: 'r', version: '1' }).tool('later', { task: 'required' }, async (_a, ctx) => {
      await gate.promise
      return (await ctx.elicit('ok', FORM('OK?'))).action
    })
    const handler = instance({ extensions: [tasks({ pollIntervalMs: 20 })] }, server)
    const { task } = (await seed(handler, 'tools/call', { name: 'later', arguments: {}, task: {} })).body.result
    setTimeout(() => gate.resolve(), 200)
    const res = await seed(handler, 'tasks/result', { taskId: task.taskId })
    expect(res.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { ok: { method: 'elicitation/create' } } })
  })

  it('ends a tasks/result wait at the platform deadline with -32603, not at the next poll', async () => {
    const handler = instance({ extensions: [tasks({ pollIntervalMs: 5000 })] })
    const { task } = (await seed(handler, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} })).body.result
    const started = Date.now()
    const res = await seed((r) => handler(r, { deadline: Date.now() + 300 }), 'tasks/result', { taskId: task.taskId })
    expect(res.body.error).toMatchObject({ code: -32603, message: 'The task did not finish before this request had to end; call tasks/result again' })
    expect(Date.now() - started).toBeLessThan(2500)
  })

  it("answers tasks/result with the tool result's own _meta beside the related task", async () => {
    const server = new McpServer({ name: 'r', version: '1' }).tool('tagged', { task: 'required' }, () => ({
      content: [{ type: 'text', text: 'tagged' }], _meta: { 'example.com/tag': 'x' },
    }))
    const handler = instance({}, server)
    const { task } = (await seed(handler, 'tools/call', { name: 'tagged', arguments: {}, task: {} })).body.result
    const payload = (await seed(handler, 'tasks/result', { taskId: task.taskId })).body.result
    expect(payload._meta).toMatchObject({ 'example.com/tag': 'x', 'io.modelcontextprotocol/related-task': { taskId: task.taskId } })
  })

  it('says why it refuses a task call: a tool that has none, and a required task not asked for (-32601)', async () => {
    const handler = instance()
    const unasked = await seed(handler, 'tools/call', { name: 'failing_job', arguments: {} })
    expect(unasked.body.error).toMatchObject({ code: -32601, message: 'Tool failing_job runs only as a task: send params.task' })
    const forbidden = await seed(handler, 'tools/call', { name: 'greet', arguments: { name: 'x' }, task: {} })
    expect(forbidden.body.error).toMatchObject({ code: -32601, message: 'Tool greet does not run as a task' })
  })

  it('lists no task to an anonymous client (an id is the only key to a task without auth), refuses a cursor that is not a string, and says when it cannot list', async () => {
    const handler = instance()
    const { task } = (await seed(handler, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} })).body.result
    expect((await seed(handler, 'tasks/list', {})).body.result.tasks).toEqual([])
    expect((await seed(handler, 'tasks/get', { taskId: task.taskId })).body.result.taskId).toBe(task.taskId)
    expect((await seed(handler, 'tasks/list', { cursor: 5 })).body.error).toMatchObject({ code: -32602, message: 'params.cursor must be a string' })
    const { list: _, ...store } = memoryTaskStore()
    const unlisted = instance({ extensions: [tasks({ store })] })
    expect((await seed(unlisted, 'tasks/list', {})).body.error).toMatchObject({ code: -32601, message: 'Method not found: tasks/list' })
  })

  it('answers a cancel with the Task and its status message, and says why it cannot cancel an ended one', async () => {
    const handler = instance()
    const { task } = (await seed(handler, 'tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} })).body.result
    expect((await seed(handler, 'tasks/cancel', { taskId: task.taskId })).body.result).toMatchObject({ status: 'cancelled', statusMessage: "Cancelled at the client's request" })
    expect((await seed(handler, 'tasks/cancel', { taskId: task.taskId })).body.error).toMatchObject({ code: -32602, message: `Task ${task.taskId} has already ended (cancelled)` })
  })

  it('takes tasks/input_response naming the task by params.taskId, and says when the task no longer waits', async () => {
    const handler = instance()
    const { task } = (await seed(handler, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'q' }, task: {} })).body.result
    expect((await seed(handler, 'tasks/result', { taskId: task.taskId })).body.result).toMatchObject({ resultType: 'input_required' })
    expect((await seed(handler, 'tasks/input_response', { taskId: task.taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } })).body.error).toBeUndefined()
    expect((await seed(handler, 'tasks/result', { taskId: task.taskId })).body.result.content[0].text).toBe('Deleted q')
    const late = await seed(handler, 'tasks/input_response', { taskId: task.taskId, inputResponses: {} })
    expect(late.body.error).toMatchObject({ code: -32602, message: `Task ${task.taskId} is not waiting for input (completed)` })
  })

  it('refuses tasks/input_response that names no task (-32602)', async () => {
    const handler = instance()
    for (const _meta of [{}, { 'io.modelcontextprotocol/related-task': 'not an object' }]) {
      const res = await seed(handler, 'tasks/input_response', { inputResponses: {}, _meta })
      expect(res.body.error).toMatchObject({ code: -32602, message: 'params.taskId must be a string' })
    }
  })

  it('keeps other extensions in the capabilities it advertises in place of the tasks extension', async () => {
    const other = { id: 'example.com/other', methods: [] }
    const handler = instance({ extensions: [tasks(), other] })
    const caps = (await seed(handler, 'server/discover', {})).body.result.capabilities
    expect(caps.extensions).toEqual({ 'example.com/other': {} })
    expect(caps.extensions).not.toHaveProperty(TASKS)
  })
})
