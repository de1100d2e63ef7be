import { invalidParams, Overloaded } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Call, Runtime } from '../exchange/types.js'
import type { Cancellation } from '../exchange/cancellation.js'
import { clientShare } from '../exchange/client-share.js'
import { StoreFull, type TaskRecord, type TaskStatus, type TaskStore } from '../state/tasks.js'
import { checkSize, detailedTask, finish, reapLost, TASK_ID, type TaskSettings } from './records.js'

/** What a task runner borrows from the request that started it: bindings, keep-alive and its time limit. */
export interface TaskHost {
  readonly env?: unknown
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined
  /** When the platform stops this invocation (ms since the epoch): a task still running then fails. */
  readonly deadline?: number | undefined
}

/** The tasks of one runtime: its store and settings, and the runners of this process. */
export interface TaskService {
  readonly store: TaskStore
  readonly settings: TaskSettings
  /** Cancellations of the tasks running in this process, by id: a cancel arriving here aborts at once. */
  readonly running: Map<string, Cancellation>
  /**
   * Keeps messages a runner emitted, in order (resumable requests): handed those that came while the last
   * were being kept, all at once. Without it, runners' messages go nowhere.
   */
  readonly journal?: ((runtime: Runtime, service: TaskService, id: string, messages: readonly JsonRpcNotification[]) => Promise<void>) | undefined
}

/**
 * Durable work of one kind (tasks, resumable requests) as a store that runs it where it lives calls on it
 * (the task Durable Object): run it for the holder of its lease, or fail it once its runner was lost.
 */
export interface DurableWork {
  /** Runs the work at `id`, leased to `holder`, here: to its next stop (an outcome, or input it waits for). */
  run(runtime: Runtime, id: string, holder: string, host: TaskHost): Promise<void>
  /**
   * Fails the work at `id` if its runner was lost (its lease ran out): the transition the first read after
   * that makes (readTask), for a store whose records nobody may read again. Listen streams hear of it.
   */
  reap(runtime: Runtime, id: string): Promise<void>
  /** Aborts the handler running the work at `id` in this process, if one is: a write elsewhere ended it with `status`. */
  stop(id: string, status: TaskStatus): void
}

/** The backplane topic of a task: listen streams that asked for it, and its runner, hear of its changes. */
export const taskTopic = (id: string): string => `task:${id}`

const MAX_CONFLICTS = 50
/** What a transition may add data to; every other field it copies or replaces with a few bytes. */
const GROWING = ['work', 'answers', 'memo', 'inputRequests', 'result', 'error', 'log'] as const
/** When a client over its share, or anyone at a full store, may try again: records end within their TTL. */
const FULL_RETRY_SEC = 30

/**
 * Stores new work within its limits: its size (-32602), its client's share of live records (429) and the
 * store's room (503); a refusal leaves every record already kept as it was.
 */
export async function keepNew(call: Call, service: TaskService, task: TaskRecord, what: string): Promise<void> {
  const { limits } = service.settings
  checkSize(task, service.settings, what)
  try {
    await service.store.create(task, limits && { client: clientShare(call.principal, call.transport), perClient: limits.perClient, total: limits.total })
  } catch (e) {
    if (!(e instanceof StoreFull)) throw e
    throw new Overloaded(`${e.message}: ${e.fault === 'client' ? 'let one end or expire' : 'try again later'}`, e.fault, FULL_RETRY_SEC)
  }
  // After the try: telemetry that throws must not read as the store refusing the task.
  call.runtime.telemetry?.count?.('task', { 'mcp.task.status': task.status })
}

/**
 * Applies a transition by compare-and-set, reading again after a conflict: concurrent writers (a cancel,
 * the runner, an answer) each see the others' writes. Status changes are published, with the owner, so
 * that listen streams of the same principal can relay them.
 */
export async function change(
  runtime: Runtime, service: TaskService, id: string, transition: (task: TaskRecord) => TaskRecord | undefined,
): Promise<{ task: TaskRecord | undefined; changed: boolean }> {
  for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
    const current = await service.store.get(id)
    if (!current) return { task: undefined, changed: false }
    const next = transition(current)
    if (!next) return { task: current, changed: false }
    const written = { ...next, version: current.version + 1 }
    // Only a write that brings data can pass the bound: a renewal or a status change is not measured.
    if (GROWING.some((field) => written[field] !== current[field])) checkSize(written, service.settings, 'The task would be')
    if (!(await service.store.put(written))) continue
    if (written.status !== current.status) runtime.telemetry?.count?.('task', { 'mcp.task.status': written.status })
    if (written.status !== current.status || written.inputRequests !== current.inputRequests) await announce(runtime, written)
    return { task: written, changed: true }
  }
  throw new Error(`task ${id} kept changing under ${MAX_CONFLICTS} attempts to write it`)
}

async function announce(runtime: Runtime, task: TaskRecord): Promise<void> {
  const data: JsonObject = { owner: task.owner, task: detailedTask(task) }
  try {
    await runtime.backplane.publish({ topic: taskTopic(task.id), data })
  } catch (e) {
    runtime.report(e, { during: 'task publish' })
  }
}

/** The task `params.taskId` names, if the asker owns it; otherwise -32602, the same as for an unknown id. */
export async function ownTask(service: TaskService, params: JsonObject, principal: string | undefined): Promise<TaskRecord> {
  const id = params.taskId
  if (typeof id !== 'string') throw invalidParams('params.taskId must be a string')
  const task = TASK_ID.test(id) ? await service.store.get(id) : undefined
  // Another principal's task is answered as if it did not exist: an id that leaked reveals nothing. A
  // resumable request kept in the same store is not a task either.
  if (!task || task.owner !== (principal ?? '') || !isTask(task)) throw invalidParams(`Unknown task: ${id}`)
  return task
}

/**
 * The asker's task named by `taskId`, failed first if its runner was lost: nothing watches leases in the
 * background, so the first read after one ran out does it.
 */
export async function readTask(call: Call, service: TaskService, taskId = call.params.taskId): Promise<TaskRecord> {
  const task = await ownTask(service, { taskId }, call.principal)
  // One read when the lease holds (nearly always); the write, and its re-read, only for a lost runner.
  if (!reapLost(task, service.settings)) return task
  return (await change(call.runtime, service, task.id, (t) => reapLost(t, service.settings))).task ?? task
}

/**
 * Cancels a task that has not ended (cooperatively: a runner here is aborted now, one elsewhere through
 * the backplane, runner.ts). `changed` is false when it had already ended.
 */
export async function cancelTask(call: Call, service: TaskService, task: TaskRecord): Promise<{ task: TaskRecord | undefined; changed: boolean }> {
  const outcome = await change(call.runtime, service, task.id, (t) => finish(t, service.settings, 'cancelled', { statusMessage: "Cancelled at the client's request" }))
  service.running.get(task.id)?.abort(new Error('The task was cancelled'))
  return outcome
}

/** A task, not another record kept beside tasks in a shared store (a resumable request, a 2025 session, a client's answer). */
export const isTask = (record: TaskRecord): boolean => typeof record.work.tool === 'string' && !isObject(record.work.resumable)

/** A random name for one run of a task: its lease holder. */
export const newHolder = (): string => crypto.randomUUID()
