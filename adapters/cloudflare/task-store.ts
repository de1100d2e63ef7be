import type { TaskLog, TaskRecord, TaskStore } from '../../src/index.js'
import type { TaskObject } from './task-object.js'

export interface DurableTaskStoreOptions<Env = unknown> {
  /** The task Durable Object namespace (the `taskObject(worker)` class); a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<TaskObject<Env>>
}

/**
 * Tasks in Durable Objects, one object per task (named by the task id): each object keeps its task in its
 * own storage and does compare-and-set there, one call at a time, so writes from any Worker are atomic
 * without a lock. `start` hands the run to the object, which outlives the request that made the task.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, tasks, type FetchHandler } from 'mcp-edge'
 * import { createWorker, durableTaskStore, taskObject, type TaskObject } from 'mcp-edge/cloudflare'
 *
 * interface Env { MCP_TASKS: DurableObjectNamespace<TaskObject> }
 *
 * const server = new McpServer({ name: 'reports', version: '1.0.0' })
 *   .tool('build_report', { description: 'Takes a while', task: 'optional' }, async () => 'Report ready')
 *
 * // What createWorker does with the MCP_TASKS binding, in a fetch handler of your own; the objects still
 * // come from taskObject, which runs each task with the worker's server and options.
 * export class McpTask extends taskObject(createWorker<Env>(server, { extensions: [tasks()] })) {}
 * let handler: FetchHandler | undefined
 * export default {
 *   fetch: (request, env) => (handler ??= createFetchHandler(server, {
 *     allowedHosts: '*',
 *     store: durableTaskStore({ namespace: () => env.MCP_TASKS }),
 *     extensions: [tasks()],
 *   }))(request, { env }),
 * } satisfies ExportedHandler<Env>
 * ```
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
    append: async (id, messages) => object(id).append(id, messages),
    messages: async (id, from) => (await object(id).messages(id, from)) as TaskLog,
  }
}
