import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Runtime } from '../exchange/types.js'
import type { TaskLog, TaskRecord, TaskStore } from '../state/tasks.js'
import { change, type TaskService } from '../tasks/service.js'
import { logged } from './records.js'

// A resumable request's messages: appended beside its record where the store keeps a log (TaskStore.append:
// one write per batch, whatever the log's length), else rewritten inside the record.

/** Keeps messages of request `id` after those before them; resolves to the place of the first (1-based), or undefined when the request is gone. */
export async function keep(runtime: Runtime, service: TaskService, id: string, messages: readonly JsonRpcNotification[]): Promise<number | undefined> {
  const { store } = service
  const kept = messages as unknown as readonly JsonObject[]
  if (store.append) {
    const length = await store.append(id, kept)
    return length === undefined ? undefined : length - kept.length + 1
  }
  const { task, changed } = await change(runtime, service, id, (t) => logged(t, kept))
  return changed && task ? task.log!.length - kept.length + 1 : undefined
}

/** The request's messages from place `from` (0-based) on, and how many it has. */
export async function readLog(store: TaskStore, task: TaskRecord, from: number): Promise<TaskLog> {
  if (store.messages) return store.messages(task.id, from)
  const log = task.log ?? []
  return { messages: log.slice(from), length: log.length }
}
