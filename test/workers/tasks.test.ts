/**
 * Tasks on Workers: one McpTask Durable Object per task keeps it and runs it (adapters/cloudflare/task-object.ts).
 * The store contract against the real objects, then tasks through the everything Worker's fetch.
 */
import { abortAllDurableObjects, createExecutionContext, runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { createWorker, durableTaskStore, taskObject } from '../../adapters/cloudflare/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { shardOf } from '../../src/core.js'
import { createFetchHandler, McpServer, StoreFull, type TaskRecord, TASKS, tasks } from '../../src/index.js'
import { describeTaskLog, describeTaskStore, record } from '../helpers/task-store.js'
import { META, mcpRequest } from './sse.js'

const store = durableTaskStore({ namespace: () => env.MCP_TASKS })
describeTaskStore('Durable Object per task', () => store)
describeTaskLog('Durable Object per task', () => store)

describe('Durable Object task store: what it counts', () => {
  const refusal = (promise: Promise<unknown>) => promise.then(() => 'kept', (e: unknown) => (e instanceof StoreFull ? `${e.fault}: ${e.message}` : String(e)))
  const share = (client: string, perClient = 2) => ({ client, perClient, total: 10_000 })

  it("refuses a client's record past its share, keeping nothing of it, and counts a place until the record's expiry", async () => {
    const client = `address ${crypto.randomUUID()}`
    await store.create(record({ expiresAt: Date.now() + 300 }), share(client))
    await store.create(record(), share(client))
    const third = record()
    expect(await refusal(store.create(third, share(client)))).toBe('client: This client has 2 records kept, its most')
    expect(await store.get(third.id)).toBeUndefined()
    expect(await refusal(store.create(record(), share(`${client}-other`)))).toBe('kept')
    // The ledger forgets everything once its last place has ended.
    const ledger = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(`mcp-tasks:share:${client}`))
    expect(await runInDurableObject(ledger, (_, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now() + 30_000)
    await wait(400)
    expect(await refusal(store.create(record(), share(client)))).toBe('kept')
  })

  it('refuses past the total, counted in shards by id, and gives back the places of a refused record', async () => {
    // Two ids of one shard, with a total of one place a shard (16 in all).
    const first = record()
    let second = record()
    while (shardOf(second.id, 16) !== shardOf(first.id, 16)) second = record()
    // Ledgers of their own: the other tests' records count in the default ones.
    const counted = durableTaskStore({ namespace: () => env.MCP_TASKS, ledgers: `test-${crypto.randomUUID()}` })
    const limits = { client: 'address 192.0.2.1', perClient: 5, total: 16 }
    expect(await refusal(counted.create(first, limits))).toBe('kept')
    expect(await refusal(counted.create(second, limits))).toBe('server: This server keeps 16 records, its most')
    // The client's place taken for the refused one was given back: four more of other shards fit.
    const others: TaskRecord[] = []
    while (others.length < 4) {
      const r = record()
      if (shardOf(r.id, 16) !== shardOf(first.id, 16) && !others.some((o) => shardOf(o.id, 16) === shardOf(r.id, 16))) others.push(r)
    }
    for (const r of others) expect(await refusal(counted.create(r, limits))).toBe('kept')
    // Over its share and in a full shard: told of its share, the bound it can do something about.
    let last = record()
    while (shardOf(last.id, 16) !== shardOf(first.id, 16)) last = record()
    expect(await refusal(counted.create(last, limits))).toBe('client: This client has 5 records kept, its most')
  })
})

const TASK_META = { ...META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} }, elicitation: { form: {} } } }
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function rpc(method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await exports.default.fetch(mcpRequest(method, params, 1, TASK_META))
  const body = await res.json() as Record<string, any>
  if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}
const call = (name: string, args: Record<string, unknown>) => rpc('tools/call', { name, arguments: args })
const getTask = (taskId: string) => rpc('tasks/get', { taskId })

/** Polls tasks/get until the task has that status (or the time is up). */
async function until(taskId: string, status: string, timeoutMs = 10_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const task = await getTask(taskId)
    if (task.status === status || Date.now() > deadline) return task
    await wait(50)
  }
}

const object = (taskId: string) => env.MCP_TASKS.get(env.MCP_TASKS.idFromName(taskId))
/** What the object holds, read inside it: its stored task, its alarm and whether a run is under way. */
const inside = (taskId: string) => runInDurableObject(object(taskId), async (instance, state) => ({
  task: state.storage.kv.get<TaskRecord>('task'),
  alarm: await state.storage.getAlarm(),
  running: (instance as unknown as { running: number }).running,
}))

/** A task id as the extension makes them (128 random bits, base64url): tasks/get refuses other shapes. */
const taskId = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

describe('tasks in Durable Objects, through the Worker', () => {
  it('advertises the extension and answers a task tool with a task', async () => {
    const created = await call('slow_compute', { seconds: 1 })
    expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) })
    expect((await inside(created.taskId)).task?.id).toBe(created.taskId)
  })

  it('runs slow_compute in the object after the request that made it has ended, to completion', async () => {
    const { taskId } = await call('slow_compute', { seconds: 2, label: 'answer' })
    // The tools/call has been answered; the handler runs on inside the object, in its alarm.
    await wait(300)
    expect(await inside(taskId)).toMatchObject({ running: 1, task: { status: 'working' } })
    const done = await until(taskId, 'completed')
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Computed answer in 2s' }] } })
    const after = await inside(taskId)
    expect(after.running).toBe(0)
    // Nothing runs any more: the alarm now waits for expiry.
    expect(after.alarm).toBe(after.task!.expiresAt)
  })

  it('cancels a running task: it ends cancelled and its handler is aborted at once', async () => {
    const { taskId } = await call('slow_compute', { seconds: 60 })
    await wait(300)
    expect((await inside(taskId)).running).toBe(1)
    expect(await rpc('tasks/cancel', { taskId })).toMatchObject({ resultType: 'complete' })
    // The handler's signal aborts the 60 s sleep: the run ends well before its lease would be renewed (10 s).
    const deadline = Date.now() + 2000
    while ((await inside(taskId)).running > 0 && Date.now() < deadline) await wait(20)
    expect((await inside(taskId)).running).toBe(0)
    expect(await getTask(taskId)).toMatchObject({ status: 'cancelled', statusMessage: expect.stringMatching(/cancelled/i) })
  })

  it('a write that ends a running task stops its run in the object, with nothing said through the hubs', async () => {
    const { taskId } = await call('slow_compute', { seconds: 60 })
    const started = Date.now() + 5000
    while ((await inside(taskId)).running === 0 && Date.now() < started) await wait(20)
    expect((await inside(taskId)).running).toBe(1)
    const { lease: _, ...task } = (await store.get(taskId))!
    // What tasks/cancel writes, without the announcement it then makes (lost, or the hubs down): the runner's
    // watch hears nothing, so only the object, which takes the write, can stop the run now.
    const cancelled = { ...task, status: 'cancelled' as const, statusMessage: 'Cancelled, and nobody told', version: task.version + 1, updatedAt: Date.now() }
    expect(await store.put(cancelled)).toBe(true)
    // Not left to the lease's renewal (every 10 s), which would find the task ended too, but later.
    const deadline = Date.now() + 5000
    while ((await inside(taskId)).running > 0 && Date.now() < deadline) await wait(20)
    expect((await inside(taskId)).running).toBe(0)
    expect(await store.get(taskId)).toEqual(cancelled)
  })

  it('asks for input inside the task (confirm_delete), takes the answer by tasks/update, and completes', async () => {
    const { taskId } = await call('confirm_delete', { filename: 'notes.txt' })
    const waiting = await until(taskId, 'input_required')
    expect(waiting.inputRequests.confirm).toMatchObject({ method: 'elicitation/create', params: { message: 'Delete notes.txt?' } })
    expect(await rpc('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } })).toMatchObject({ resultType: 'complete' })
    expect(await until(taskId, 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'Deleted notes.txt' }] } })
  })

  it('finds the task objects under the binding taskBinding names', async () => {
    // The objects bound as MCP_TASKS run the everything server, so this Worker serves the same one.
    const worker = createWorker(createEverythingServer(), { taskBinding: 'JOBS', extensions: [tasks()] })
    const bindings = { MCP_HUB: env.MCP_HUB, MCP_REQUEST_STATE_SECRET: 'task-binding-secret-0123456789abcdef', JOBS: env.MCP_TASKS }
    const res = await worker.fetch(mcpRequest('tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, 1, TASK_META), bindings, createExecutionContext())
    const { result } = await res.json() as Record<string, any>
    expect(result).toMatchObject({ resultType: 'task', status: 'working' })
    expect((await inside(result.taskId)).task?.id).toBe(result.taskId)
  })

  it('keeps a task across the eviction of its object between polls', async () => {
    const { taskId } = await call('confirm_delete', {})
    await until(taskId, 'input_required')
    await runInDurableObject(object(taskId), async (instance) => {
      ;(instance as unknown as { marker?: number }).marker = 1
    })
    await abortAllDurableObjects() // every object restarts: only what is in storage survives
    const marker = await runInDurableObject(object(taskId), async (instance) => (instance as unknown as { marker?: number }).marker)
    expect(marker).toBeUndefined()
    expect(await getTask(taskId)).toMatchObject({ status: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } })
    await rpc('tasks/update', { taskId, inputResponses: { confirm: { action: 'decline' } } })
    expect(await until(taskId, 'completed')).toMatchObject({ result: { content: [{ type: 'text', text: 'Kept the file' }] } })
  })
})

describe('what a task object serves', () => {
  it('only the task it holds: another id is neither read nor written there', async () => {
    const task = record({ id: taskId() })
    await store.create(task)
    const held = object(task.id)
    expect(await held.get(taskId())).toBeUndefined()
    expect(await held.put({ ...task, id: taskId(), version: 2, status: 'cancelled' })).toBe(false)
    expect(await held.get(task.id)).toEqual(task)
  })

  it('a run only to the lease holder of a working task: start() from anyone else is ignored', async () => {
    const now = Date.now()
    const working = record({ id: taskId(), owner: '', lease: { holder: 'h1', until: now + 30_000 }, work: { tool: 'slow_compute', arguments: { seconds: 1 }, version: '2026-07-28', client: { capabilities: {} } } })
    // Ended, though it still names h1 as its holder: not run either.
    const ended = record({ id: taskId(), status: 'completed', lease: { holder: 'h1', until: now + 30_000 } })
    for (const task of [working, ended]) await store.create(task)
    await object(working.id).start(working.id, 'h2')
    await object(ended.id).start(ended.id, 'h1')
    expect(await inside(working.id)).toEqual({ task: working, alarm: working.lease!.until, running: 0 })
    expect(await inside(ended.id)).toEqual({ task: ended, alarm: ended.expiresAt, running: 0 })
  })

  it('is made only from a worker createWorker made, and says so', () => {
    const handmade = { fetch: async () => new Response(), notify: () => ({}) }
    expect(() => taskObject(handmade as never)).toThrow(new Error('taskObject(worker) takes the worker createWorker made'))
  })

  it('names its store durable-objects in a handler\'s summary', () => {
    const server = new McpServer({ name: 'summary', version: '1' }).tool('slow', { description: 'a task', task: 'optional' }, () => 'done')
    expect(createFetchHandler(server, { allowedHosts: '*', extensions: [tasks({ store })] }).summary.tasks).toBe('durable-objects')
  })

  it('a task only until its expiresAt, though the alarm has not yet swept it', async () => {
    const task = record({ id: taskId() })
    await store.create(task)
    // Stored straight, with no alarm due: expired, and still there. The object's clock held at `now`.
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const now = Date.now()
      const servedAt = (expiresAt: number) => runInDurableObject(object(task.id), async (instance, state) => {
        state.storage.kv.put('task', { ...task, expiresAt })
        return instance.get(task.id)
      })
      expect(await servedAt(now + 1)).toMatchObject({ id: task.id })
      expect(await servedAt(now)).toBeUndefined()
      expect(await servedAt(now - 1)).toBeUndefined()
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('the task object\'s alarm', () => {
  it('fails a working task whose lease ran out, with nobody polling', async () => {
    // A runner that went away (its instance ended) leaves a lease that is never renewed.
    const now = Date.now()
    const task = record({
      id: taskId(), owner: '', lease: { holder: 'gone', until: now + 300 }, expiresAt: now + 300 + 60_000,
      work: { tool: 'slow_compute', arguments: { seconds: 1 }, version: '2026-07-28', client: { capabilities: {} } },
    })
    await store.create(task)
    expect((await inside(task.id)).alarm).toBe(now + 300)
    const deadline = Date.now() + 5000
    while ((await inside(task.id)).task?.status === 'working' && Date.now() < deadline) await wait(50)
    const { task: stored, alarm } = await inside(task.id)
    expect(stored).toMatchObject({ status: 'failed', version: 2, error: { code: -32603, message: expect.stringMatching(/lost/) } })
    expect(stored!.lease).toBeUndefined()
    expect(alarm).toBe(stored!.expiresAt)
  })

  it('reports a lease check that fails, and tries it again a minute later (or at expiry, if sooner) rather than at once', async () => {
    const lapsing = (expiresIn: number) => {
      const now = Date.now()
      return record({
        id: taskId(), owner: '', lease: { holder: 'gone', until: now + 300 }, expiresAt: now + expiresIn,
        work: { tool: 'slow_compute', arguments: { seconds: 1 }, version: '2026-07-28', client: { capabilities: {} } },
      })
    }
    const spy = vi.spyOn(console, 'error')
    try {
      for (const [task, retried] of [[lapsing(600_000), 'in a minute'], [lapsing(20_000), 'at expiry']] as const) {
        await store.create(task)
        // Storage that refuses the write failing the task (a full disk, say): the check fails.
        await runInDurableObject(object(task.id), (_instance, state) => {
          const kv = state.storage.kv
          const put = kv.put.bind(kv)
          kv.put = (key: string, value: unknown) => {
            if ((value as TaskRecord).status === 'failed') throw new Error('storage refused the write')
            return put(key, value)
          }
        })
        const deadline = Date.now() + 5000
        while ((await inside(task.id)).alarm! < Date.now() + 10_000 && Date.now() < deadline) await wait(50)
        const { task: stored, alarm } = await inside(task.id)
        expect(stored).toEqual(task)
        if (retried === 'at expiry') expect(alarm).toBe(task.expiresAt)
        else expect(alarm! - Date.now()).toSatisfy((left: number) => left > 50_000 && left <= 60_000)
        // The default onError's lines: one JSON object each.
        const checks = spy.mock.calls.map(([line]) => (typeof line === 'string' && line.startsWith('{') ? JSON.parse(line) : undefined)).filter((entry) => entry?.requestId === task.id)
        expect(checks).toEqual([{
          level: 'error', logger: 'mcp-edge', during: 'task lease check', requestId: task.id, errorId: expect.stringMatching(/^[0-9a-f]{8}$/),
          error: { type: 'Error', message: 'storage refused the write', stack: expect.stringContaining('storage refused the write') },
        }])
      }
    } finally {
      spy.mockRestore()
    }
  })

  it('forgets the task at expiresAt: storage and alarm are gone', async () => {
    const task = record({ id: taskId(), status: 'completed', lease: undefined, expiresAt: Date.now() + 300 })
    await store.create(task)
    const deadline = Date.now() + 5000
    while ((await inside(task.id)).task !== undefined && Date.now() < deadline) await wait(50)
    expect(await inside(task.id)).toEqual({ task: undefined, alarm: null, running: 0 })
    expect(await store.get(task.id)).toBeUndefined()
  })
})
