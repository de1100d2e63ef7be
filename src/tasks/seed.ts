import { INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, TASKS } from '../protocol/constants.js'
import { invalidParams, McpError } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { ServerCapabilities } from '../protocol/types.js'
import type { Call } from '../exchange/types.js'
import { isResync, type Subscription } from '../state/backplane.js'
import { isTerminal, type TaskRecord } from '../state/tasks.js'
import { taskFields } from './records.js'
import { cancelTask, isTask, readTask, taskTopic, type TaskService } from './service.js'

// The seed draft's core tasks (DRAFT-2026-v1, DIGEST §9.1), from the same store as the extension: a client
// asks for a task with `params.task`, gets `{task}`, and may block on tasks/result or list its tasks.

export const RELATED_TASK = 'io.modelcontextprotocol/related-task'
const PAGE = 50

/** The `tasks` capability of the seed draft in place of the extension's entry. */
export function seedCapabilities(caps: ServerCapabilities, service: TaskService): ServerCapabilities {
  const { [TASKS]: _, ...others } = caps.extensions ?? {}
  const { extensions: __, ...rest } = caps
  const tasks: JsonObject = { cancel: {}, requests: { tools: { call: {} } } }
  // Listing is offered only where the store can list an owner's tasks, and they are bound to an owner.
  if (service.store.list) tasks.list = {}
  return { ...rest, ...(Object.keys(others).length > 0 ? { extensions: others } : {}), tasks }
}

/**
 * Whether a seed-draft `tools/call` runs as a task: the client asks with `params.task`. A tool that cannot
 * run as one, asked to, and a tool that must, not asked to, are refused with -32601 (the draft's code).
 */
export function seedWantsTask(call: Call, support: 'optional' | 'required' | undefined): boolean {
  const asked = call.params.task
  if (asked !== undefined && !isObject(asked)) throw invalidParams('params.task must be an object ({ ttl? })')
  if (asked && !support) throw new McpError(METHOD_NOT_FOUND, `Tool ${String(call.params.name)} does not run as a task`)
  if (!asked && support === 'required') throw new McpError(METHOD_NOT_FOUND, `Tool ${String(call.params.name)} runs only as a task: send params.task`)
  return asked !== undefined
}

export const seedTask = (call: Call, task: TaskRecord): JsonObject => taskFields(task, call.profile)

/** `tasks/result`: waits until the task ends or needs input, then answers what the tool call would have. */
export async function seedResult(call: Call, service: TaskService): Promise<JsonObject> {
  const task = await waitForStop(call, service)
  const related = { [RELATED_TASK]: { taskId: task.id } }
  if (task.status === 'input_required') return { resultType: 'input_required', inputRequests: task.inputRequests ?? {}, _meta: related }
  if (task.status === 'completed') return { ...task.result, _meta: { ...(isObject(task.result?._meta) ? task.result._meta : {}), ...related } }
  if (task.status === 'failed') {
    const error = task.error ?? {}
    throw new McpError(typeof error.code === 'number' ? error.code : INTERNAL_ERROR, String(error.message ?? 'The task failed'), error.data)
  }
  throw new McpError(INTERNAL_ERROR, 'The task was cancelled before it produced a result')
}

/**
 * Reads the task until it is terminal or waits for input. Between reads it waits for a change announced on
 * the backplane, or the poll interval, whichever comes first: a backplane that missed one costs a poll, not
 * a hang. The client leaving, or the platform's deadline, ends the wait.
 */
async function waitForStop(call: Call, service: TaskService): Promise<TaskRecord> {
  let task = await readTask(call, service)
  if (isTerminal(task.status) || task.status === 'input_required') return task
  let wake: (() => void) | undefined
  const subscription: Subscription = await call.runtime.backplane.subscribe([taskTopic(task.id)], (event) => {
    if (isResync(event) || event.topic === taskTopic(task.id)) wake?.()
  })
  const signal = call.transport.cancel.signal
  try {
    for (;;) {
      if (signal.aborted) throw new McpError(INTERNAL_ERROR, 'The request was cancelled while it waited for the task')
      const left = (call.transport.deadline ?? Infinity) - Date.now()
      if (left <= 0) throw new McpError(INTERNAL_ERROR, 'The task did not finish before this request had to end; call tasks/result again')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(task.pollIntervalMs, left))
        function done() {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          wake = undefined
          resolve()
        }
        wake = done
        signal.addEventListener('abort', done, { once: true })
      })
      task = await readTask(call, service, task.id)
      if (isTerminal(task.status) || task.status === 'input_required') return task
    }
  } finally {
    await subscription.close().catch((e) => call.runtime.report(e, { during: 'tasks/result close' }))
  }
}

/**
 * `tasks/list`: a page of the asker's own live tasks. An anonymous asker owns none: without a principal a
 * task id is the only capability to it (its result, its input request), so ids are never listed to strangers.
 */
export async function seedList(call: Call, service: TaskService): Promise<JsonObject> {
  const { list } = service.store
  if (!list) throw new McpError(METHOD_NOT_FOUND, 'Method not found: tasks/list')
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams('params.cursor must be a string')
  if (call.principal === undefined) return { tasks: [] }
  const page = await list.call(service.store, call.principal, cursor, PAGE)
  const result: JsonObject = { tasks: page.tasks.filter(isTask).map((t) => seedTask(call, t)) }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return result
}

/** `tasks/cancel` at the draft: the cancelled Task; a task already ended cannot be (-32602). */
export async function seedCancel(call: Call, service: TaskService): Promise<JsonObject> {
  const task = await readTask(call, service)
  const { task: after, changed } = await cancelTask(call, service, task)
  if (!changed) throw new McpError(INVALID_PARAMS, `Task ${task.id} has already ended (${after?.status ?? task.status})`)
  return seedTask(call, after!)
}

/** Where `tasks/input_response` names its task: `params.taskId` in the prose, related-task `_meta` in the example. */
export function inputResponseTaskId(params: JsonObject): unknown {
  if (params.taskId !== undefined) return params.taskId
  const related = isObject(params._meta) ? params._meta[RELATED_TASK] : undefined
  return isObject(related) ? related.taskId : undefined
}

/** A listen event as the draft's `notifications/tasks/status`: the Task, without result, error or input requests. */
export function seedStatus(detailed: JsonObject): JsonObject {
  const { ttlMs, pollIntervalMs, result: _, error: __, inputRequests: ___, ...task } = detailed
  return { ...task, ttl: ttlMs ?? null, pollInterval: pollIntervalMs }
}
