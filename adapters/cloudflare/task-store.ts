import type { TaskRecord, TaskStore } from '../../src/index.js'
import type { TaskObject } from './task-object.js'

export interface DurableTaskStoreOptions<Env = unknown> {
  /** The task Durable Object namespace (the `taskObject(worker)` class); a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<TaskObject<Env>>
}

/**
 * Tasks in Durable Objects, one object per task (named by the task id): each object keeps its task in its
 * own storage and does compare-and-set there, one call at a time, so writes from any Worker are atomic
 * without a lock. `start` hands the run to the object, which outlives the request that made the task.
 */
export function durableTaskStore<Env>(options: DurableTaskStoreOptions<Env>): TaskStore {
  const object = (id: string) => {
    const namespace = options.namespace()
    return namespace.get(namespace.idFromName(id))
  }
  return {
    kind: 'durable-objects',
    create: async (task) => object(task.id).create(task),
    // RPC gives back a structured clone: the record as stored.
    get: async (id) => (await object(id).get(id)) as TaskRecord | undefined,
    put: async (task) => object(task.id).put(task),
    start: async (id, holder) => object(id).start(id, holder),
  }
}
