import { shardOf } from '../../src/core.js'
import { StoreFull, type RecordLimits, type TaskLog, type TaskRecord, type TaskStore } from '../../src/index.js'
import type { TaskObject } from './task-object.js'

/**
 * Objects that count all records, each a share of the total: one object for every create of a deployment
 * would be its bottleneck (some 1,000 requests/s per object). A shard full while others are not refuses
 * early; a record counts in the one its id falls in.
 */
const TOTAL_SHARDS = 16

export interface DurableTaskStoreOptions<Env = unknown> {
  /** The task Durable Object namespace (the `taskObject(worker)` class); a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<TaskObject<Env>>
  /**
   * What the objects that count records for the limits are named after (default `mcp-tasks`): stores of
   * one namespace and name count together.
   */
  ledgers?: string | undefined
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
    async create(task, limits) {
      // Places taken for a record whose write then fails end with the time it was made for.
      if (limits) await claim(object, options.ledgers ?? 'mcp-tasks', task, limits)
      await object(task.id).create(task)
    },
    // RPC gives back a structured clone: the record as stored.
    get: async (id) => (await object(id).get(id)) as TaskRecord | undefined,
    put: async (task) => object(task.id).put(task),
    start: async (id, holder) => object(id).start(id, holder),
    append: async (id, messages) => object(id).append(id, messages),
    messages: async (id, from) => (await object(id).messages(id, from)) as TaskLog,
  }
}

/**
 * Takes the record's places in the ledgers that count it (objects of the same class, named for its client's
 * share and for its shard of all records, each with a colon, which a task id never has), or none, and says why.
 * A place lasts as long as the record was created to: a task still running past its TTL stops counting.
 */
async function claim(object: (name: string) => DurableObjectStub<TaskObject>, prefix: string, task: TaskRecord, limits: RecordLimits): Promise<void> {
  const ledgers: [string, number, StoreFull][] = [[`${prefix}:total:${shardOf(task.id, TOTAL_SHARDS)}`, Math.ceil(limits.total / TOTAL_SHARDS), new StoreFull(`This server keeps ${limits.total} records, its most`, 'server')]]
  if (limits.client !== undefined) ledgers.push([`${prefix}:share:${limits.client}`, limits.perClient, new StoreFull(`This client has ${limits.perClient} records kept, its most`, 'client')])
  const taken = await Promise.all(ledgers.map(([name, max]) => object(name).claim(task.id, task.expiresAt, max)))
  // Both full: the client's own share is what it can do something about.
  const refused = ledgers.findLast((_, i) => !taken[i])
  if (!refused) return
  await Promise.all(ledgers.filter((_, i) => taken[i]).map(([name]) => object(name).release(task.id)))
  throw refused[2]
}
