/**
 * The seed draft's core tasks (DRAFT-2026-v1) from the same store as the extension: `params.task`, `{task}`
 * results with ttl, tasks/result blocking until the end, tasks/list of one's own, tasks/cancel answering the
 * Task, tasks/input_response, and notifications/tasks/status. Answers are checked against the draft schema.
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, type HandlerOptions, McpServer, memoryTaskStore, tasks } from '../../src/index.js'
import { deferred } from '../helpers/async.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, rpc } from '../helpers/server.js'
import { handlerPool, SEED_META } from '../helpers/tasks.js'
import { recordingFetch } from '../helpers/wire.js'


const newHandler = handlerPool()

function setup(options: HandlerOptions = {}, server?: McpServer) {
  const handler = newHandler(options, server)
  let id = 0
  const call = (method: string, params: Record<string, unknown>, headers?: Record<string, string>) =>
    rpc((r) => handler(new Request(r, { headers: { ...Object.fromEntries(r.headers), ...headers } })), method, { ...params, _meta: { ...SEED_META(), ...(params._meta as object) } }, { id: ++id })
  const result = async (method: string, params: Record<string, unknown>, headers?: Record<string, string>) => {
    const res = await call(method, params, headers)
    expect(res.body.error).toBeUndefined()
    return res.body.result
  }
  return { handler, call, result }
}

describe('seed draft core tasks (DRAFT-2026-v1)', () => {
  it('advertises the tasks capability (not the extension) and each tool’s taskSupport', async () => {
    const { result, handler } = setup()
    const caps = (await result('server/discover', {})).capabilities
    expect(caps.tasks).toEqual({ cancel: {}, list: {}, requests: { tools: { call: {} } } })
    expect(caps).not.toHaveProperty('extensions')
    const tools = (await result('tools/list', {})).tools
    const support = Object.fromEntries(tools.map((t: any) => [t.name, t.execution?.taskSupport]))
    expect(support).toMatchObject({ greet: undefined, slow_compute: 'optional', failing_job: 'required' })
    // 2026-07-28 keeps the extension and shows no execution member.
    const modern = await rpc(handler, 'tools/list', { _meta: META_2026() })
    expect(modern.body.result.tools.find((t: any) => t.name === 'slow_compute')).not.toHaveProperty('execution')
  })

  it('makes a task only when params.task asks, answers {task} with ttl and pollInterval, and tasks/result blocks until the end', async () => {
    const { result } = setup({ extensions: [tasks({ pollIntervalMs: 5000 })] })
    const plain = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } })
    expect(plain.content[0].text).toBe('Computed result in 0s')
    const created = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 1, label: 's' }, task: { ttl: 60_000 } })
    expect(Object.keys(created.task).sort()).toEqual(['createdAt', 'lastUpdatedAt', 'pollInterval', 'status', 'taskId', 'ttl'])
    expect(created.task).toMatchObject({ status: 'working', pollInterval: 5000 })
    const started = Date.now()
    // Woken by the change itself, not by the 5 s poll interval.
    const payload = await result('tasks/result', { taskId: created.task.taskId })
    expect(Date.now() - started).toBeLessThan(4000)
    expect(payload.content[0].text).toBe('Computed s in 1s')
    expect(payload._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: created.task.taskId })
    const got = await result('tasks/get', { taskId: created.task.taskId })
    expect(got).toMatchObject({ taskId: created.task.taskId, status: 'completed' })
    expect(got).not.toHaveProperty('result')
  })

  it('refuses -32601 for a task asked of a tool that has none, and for a required task not asked for', async () => {
    const { call } = setup()
    const unasked = await call('tools/call', { name: 'failing_job', arguments: {} })
    expect([unasked.status, unasked.body.error.code]).toEqual([404, -32601])
    const forbidden = await call('tools/call', { name: 'greet', arguments: { name: 'x' }, task: {} })
    expect(forbidden.body.error.code).toBe(-32601)
    const malformed = await call('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: 5 })
    expect(malformed.body.error).toMatchObject({ code: -32602, message: 'params.task must be an object ({ ttl? })' })
  })

  it('answers tasks/result with the JSON-RPC error of a failed task, and the input requests of a waiting one', async () => {
    const { call, result } = setup()
    const failed = await result('tools/call', { name: 'protocol_error_job', arguments: {}, task: {} })
    const error = await call('tasks/result', { taskId: failed.task.taskId })
    expect(error.body.error).toEqual({ code: -32603, message: 'The job hit a protocol error, as it always does' })
    const waiting = await result('tools/call', { name: 'confirm_delete', arguments: { filename: 'z' }, task: {} })
    const taskId = waiting.task.taskId
    const asked = await result('tasks/result', { taskId })
    expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } })
    // The draft's example names the task in related-task _meta.
    await result('tasks/input_response', {
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      _meta: { ...SEED_META(), 'io.modelcontextprotocol/related-task': { taskId } },
    })
    expect((await result('tasks/result', { taskId })).content[0].text).toBe('Deleted z')
    const late = await call('tasks/input_response', { taskId, inputResponses: {} })
    expect(late.body.error).toMatchObject({ code: -32602 })
  })

  it('cancels with the cancelled Task, refuses to cancel an ended one (-32602), and tasks/result then says cancelled', async () => {
    const { call, result } = setup()
    const { task } = await result('tools/call', { name: 'slow_compute', arguments: { seconds: 60 }, task: {} })
    expect(await result('tasks/cancel', { taskId: task.taskId })).toMatchObject({ taskId: task.taskId, status: 'cancelled' })
    expect((await call('tasks/cancel', { taskId: task.taskId })).body.error).toMatchObject({ code: -32602 })
    expect((await call('tasks/result', { taskId: task.taskId })).body.error).toMatchObject({ code: -32603, message: 'The task was cancelled before it produced a result' })
  })

  it("lists one's own tasks only, in pages", async () => {
    const { result } = setup({ auth: bearerAuth(namedUsers()) })
    const mine: string[] = []
    for (let i = 0; i < 55; i++) mine.push((await result('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: {} }, as('ann'))).task.taskId)
    await result('tools/call', { name: 'slow_compute', arguments: { seconds: 0 }, task: {} }, as('ben'))
    const first = await result('tasks/list', {}, as('ann'))
    expect(first.tasks).toHaveLength(50)
    const second = await result('tasks/list', { cursor: first.nextCursor }, as('ann'))
    expect(second).not.toHaveProperty('nextCursor')
    expect([...first.tasks, ...second.tasks].map((t: any) => t.taskId)).toEqual(mine)
    expect((await result('tasks/list', {}, as('ben'))).tasks).toHaveLength(1)
  })

  it('has no tasks/list where the store cannot list, and says so in its capability', async () => {
    const { list: _, ...store } = memoryTaskStore()
    const { call, result } = setup({ extensions: [tasks({ store })] })
    expect((await result('server/discover', {})).capabilities.tasks).toEqual({ cancel: {}, requests: { tools: { call: {} } } })
    expect((await call('tasks/list', {})).body.error.code).toBe(-32601)
  })

  it('keeps the forms apart: the extension methods do not exist at the draft, nor the draft’s at 2026-07-28', async () => {
    const { call, handler } = setup()
    expect((await call('tasks/update', { taskId: 'AAAAAAAAAAAAAAAAAAAAAA', inputResponses: {} })).body.error.code).toBe(-32601)
    for (const method of ['tasks/result', 'tasks/list', 'tasks/input_response']) {
      const res = await rpc(handler, method, { taskId: 'AAAAAAAAAAAAAAAAAAAAAA', _meta: META_2026({ extensions: { 'io.modelcontextprotocol/tasks': {} } }) })
      expect([method, res.status, res.body.error.code]).toEqual([method, 404, -32601])
    }
  })

  it('relays changes as notifications/tasks/status carrying the Task', async () => {
    const gate = deferred()
    const server = new McpServer({ name: 's', version: '1' }).tool('gated', { task: 'required' }, async () => {
      await gate.promise
      return 'done'
    })
    const { handler, result } = setup({}, server)
    const wire = recordingFetch((r) => handler(r))
    const { task } = await result('tools/call', { name: 'gated', arguments: {}, task: {} })
    const params = { notifications: { taskIds: [task.taskId] }, _meta: SEED_META() }
    const res = await wire.fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': 'DRAFT-2026-v1', 'mcp-method': 'subscriptions/listen' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params }),
    }))
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const until = async (needle: string) => {
      while (!text.includes(needle)) text += decoder.decode((await reader.read()).value)
    }
    await until('acknowledged')
    gate.resolve()
    await until('"completed"')
    expect(text).toContain('"method":"notifications/tasks/status"')
    const status = JSON.parse(text.split('\n').filter((l) => l.includes('tasks/status')).pop()!.slice(5))
    expect(status.params).toMatchObject({ taskId: task.taskId, status: 'completed', ttl: expect.any(Number) })
    expect(status.params).not.toHaveProperty('result')
    await reader.cancel()
    await wire.settled()
    expect(wire.violations).toEqual([])
  })
})
