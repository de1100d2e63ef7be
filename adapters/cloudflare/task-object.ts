import { DurableObject } from 'cloudflare:workers'
import { createRuntime, resumableOf, tasksOf, type DurableWork, type JsonObject, type Runtime, type TaskHost } from '../../src/core.js'
import { isTerminal, type TaskLog, type TaskRecord, type TaskStore } from '../../src/index.js'
import { bindingServices, definitionOf, type McpWorker, type WorkerDefinition } from './worker.js'

/** What the Worker's durableTaskStore calls on a task's object over RPC. */
export interface TaskObjectMethods {
  create(task: TaskRecord): Promise<void>
  get(id: string): Promise<TaskRecord | undefined>
  put(task: TaskRecord): Promise<boolean>
  start(id: string, holder: string): Promise<void>
  append(id: string, messages: readonly JsonObject[]): Promise<number | undefined>
  messages(id: string, from: number): Promise<TaskLog>
  /**
   * As a ledger (an object named for a client's share, or for a shard of all records): takes a place for
   * record `id` until `until`, if fewer than `max` places are taken. See adapters/cloudflare/task-store.ts.
   */
  claim(id: string, until: number, max: number): Promise<boolean>
  /** Gives back the place of `id`, taken in a ledger that refused the record elsewhere. */
  release(id: string): Promise<void>
}
/** The instance type of a `taskObject(worker)` class, for `DurableObjectNamespace<TaskObject>`. */
export type TaskObject<Env = unknown> = DurableObject<Env> & TaskObjectMethods
/** What `taskObject(worker)` returns: a Durable Object class to extend (wrangler binds named exports only). */
export type TaskObjectClass<Env> = new (ctx: DurableObjectState, env: Env) => TaskObject<Env>

// Storage keys: the task, the holder of a run that start() asked for and the alarm has not begun, and the
// task's log (resumable requests): its length, and each message under its place.
const TASK = 'task'
const RUN = 'run'
const LOGGED = 'logged'
const LOG = 'log:'
/** A ledger's places, each under its record's id, with when it ends. */
const PLACE = 'place:'

/**
 * A Durable Object alarm handler may run for 15 minutes of wall time (Cloudflare's limits), and the run is
 * inside one: a task still running near the end fails with a reason rather than be cut off unexplained.
 */
const ALARM_WALL_MS = 15 * 60_000
const FINAL_WRITE_MS = 30_000
/**
 * How long a lease check that failed waits to be tried again. Its alarm is due at once (the lease has run
 * out), so without a wait of its own a check that keeps failing (storage refusing the write, or a deploy
 * that no longer serves the work's kind) would run, and be reported, without pause until the task expires.
 */
const LEASE_RECHECK_MS = 60_000

/**
 * The Durable Object class that holds one task and runs it: `export class McpTask extends taskObject(worker) {}`
 * in the Worker module, bound as MCP_TASKS (or `taskBinding`) in wrangler.toml with a `new_sqlite_classes`
 * migration. It serves tasks with the worker's own server and options, so one definition serves both.
 *
 * Why the run happens in alarm(): a Durable Object stays in memory while it handles a request or an event,
 * and is evicted 70-140 s after the last one ends, pending timers and promises notwithstanding (before the
 * 2026-10-01 compatibility date); an RPC call lasts only while its caller (a Worker request, 30 s of
 * waitUntil at most) stays connected. An alarm is an event of the object's own, with at-least-once delivery
 * and 15 minutes of wall time, so start() stores the run and sets the alarm for now, and alarm() runs it.
 * The same alarm then waits for whatever comes next: the lease running out, or expiry.
 *
 * @example
 * ```ts
 * import { McpServer, tasks } from 'mcp-edge'
 * import { createWorker, taskObject } from 'mcp-edge/cloudflare'
 *
 * const server = new McpServer({ name: 'reports', version: '1.0.0' })
 *   .tool('build_report', { description: 'Takes a while', task: 'optional' }, async () => 'Report ready')
 *
 * const worker = createWorker(server, { extensions: [tasks()] })
 * export default worker
 * export { McpHub } from 'mcp-edge/cloudflare'
 * export class McpTask extends taskObject(worker) {}   // bound as MCP_TASKS, with a new_sqlite_classes migration
 * ```
 */
export function taskObject<Env extends object>(worker: McpWorker<Env>): TaskObjectClass<Env> {
  const found = definitionOf(worker as McpWorker<never>)
  if (!found) throw new Error('taskObject(worker) takes the worker createWorker made')
  const definition: WorkerDefinition = found
  return class McpTask extends TaskObjectBase<Env> {
    protected readonly definition = definition
  }
}

/** The task Durable Object of every worker; taskObject names which worker's server and options it runs. */
abstract class TaskObjectBase<Env extends object> extends DurableObject<Env> implements TaskObjectMethods {
  protected abstract readonly definition: WorkerDefinition
  #runtime: Runtime | undefined
  /**
   * Runs under way in this instance (0 or 1: one task, one lease holder at a time). A plain field, not an
   * RPC method (RPC exposes only the prototype's), so that tests inside the object can read it.
   */
  private running = 0

  /** This object's task as stored, expired or not. */
  #stored(): TaskRecord | undefined {
    return this.ctx.storage.kv.get<TaskRecord>(TASK)
  }

  /** The task if it is the one asked for and has not expired: expiry holds before the alarm deletes it. */
  #live(id: string): TaskRecord | undefined {
    const task = this.#stored()
    return task && task.id === id && task.expiresAt > Date.now() ? task : undefined
  }

  /**
   * Compare-and-set. Nothing in here awaits between the read and the write (the KV API of SQLite-backed
   * objects is synchronous), so no other call to this object can come in between.
   */
  #put(task: TaskRecord): boolean {
    const current = this.#live(task.id)
    if (!current || current.version !== task.version - 1) return false
    this.ctx.storage.kv.put(TASK, task)
    return true
  }

  /** Sets the one alarm for the next thing that is due: a run asked for, the lease running out, expiry. */
  async #schedule(): Promise<void> {
    const task = this.#stored()
    if (!task) return this.ctx.storage.deleteAlarm()
    const due = this.ctx.storage.kv.get<string>(RUN) !== undefined
      ? Date.now()
      : task.status === 'working' && task.lease ? Math.min(task.lease.until, task.expiresAt) : task.expiresAt
    await this.ctx.storage.setAlarm(due)
  }

  /** The runtime tasks run in here: the worker's server and options, this object's storage as the store. */
  #runtimeHere(): Runtime {
    if (this.#runtime) return this.#runtime
    const local: TaskStore = {
      create: async () => {
        throw new Error('tasks are created through the Worker')
      },
      get: async (id) => this.#live(id),
      put: async (task) => {
        const written = this.#put(task)
        if (written) await this.#schedule()
        return written
      },
      append: async (id, messages) => this.append(id, messages),
      messages: async (id, from) => this.messages(id, from),
    }
    const { server, options } = this.definition
    this.#runtime = createRuntime(server, {
      ...options,
      ...bindingServices(options, this.env),
      // The extension plans build their own here, on this object's storage (one named its own store? then
      // the Worker never sent its work here).
      store: local,
      // Tasks run with the identity stored in them; lists are not served here.
      auth: undefined,
    })
    return this.#runtime
  }

  async create(task: TaskRecord): Promise<void> {
    if (this.#live(task.id)) throw new Error(`task ${task.id} exists`)
    // An expired task the alarm has not deleted yet goes, with its log.
    if (this.#stored()) await this.ctx.storage.deleteAll()
    this.ctx.storage.kv.put(TASK, task)
    await this.#schedule()
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    return this.#live(id)
  }

  /** A write from a Worker (a cancel, an answer): one that ends the task stops its run here at once. */
  async put(task: TaskRecord): Promise<boolean> {
    const before = this.#live(task.id)
    if (!this.#put(task)) return false
    await this.#schedule()
    // The runner would notice at its next lease renewal; its handler is aborted now (its closing write is
    // a no-op on a task that has ended).
    if (this.running > 0 && this.#runtime && before && !isTerminal(before.status) && isTerminal(task.status)) {
      this.#work(this.#runtime, task).stop(task.id, task.status)
    }
    return true
  }

  /** Appends to the task's log, one key per message: nothing written before is written again. */
  async append(id: string, messages: readonly JsonObject[]): Promise<number | undefined> {
    if (!this.#live(id)) return undefined
    const { kv } = this.ctx.storage
    let length = kv.get<number>(LOGGED) ?? 0
    for (const message of messages) kv.put(`${LOG}${length++}`, message)
    kv.put(LOGGED, length)
    return length
  }

  async messages(id: string, from: number): Promise<TaskLog> {
    if (!this.#live(id)) return { messages: [], length: 0 }
    const { kv } = this.ctx.storage
    const length = kv.get<number>(LOGGED) ?? 0
    const messages: JsonObject[] = []
    for (let place = Math.max(0, from); place < length; place++) messages.push(kv.get<JsonObject>(`${LOG}${place}`)!)
    return { messages, length }
  }

  async claim(id: string, until: number, max: number): Promise<boolean> {
    const { kv } = this.ctx.storage
    const now = Date.now()
    let taken = 0
    for (const [key, ends] of kv.list<number>({ prefix: PLACE })) {
      if (ends > now) taken++
      else kv.delete(key)
    }
    if (taken >= max) return false
    kv.put(`${PLACE}${id}`, until)
    // The alarm (no task here: it deletes everything) comes once the last place has ended.
    const alarm = await this.ctx.storage.getAlarm()
    if (alarm === null || alarm < until) await this.ctx.storage.setAlarm(until)
    return true
  }

  async release(id: string): Promise<void> {
    this.ctx.storage.kv.delete(`${PLACE}${id}`)
  }

  async start(id: string, holder: string): Promise<void> {
    const task = this.#live(id)
    if (!task || task.status !== 'working' || task.lease?.holder !== holder) return
    this.ctx.storage.kv.put(RUN, holder)
    await this.#schedule()
  }

  override async alarm(): Promise<void> {
    const task = this.#stored()
    if (!task || task.expiresAt <= Date.now()) {
      await this.ctx.storage.deleteAlarm()
      await this.ctx.storage.deleteAll()
      this.#runtime = undefined
      return
    }
    const holder = this.ctx.storage.kv.get<string>(RUN)
    if (holder !== undefined) {
      // Taken before it runs: a run lost with this instance is not run again by a retried alarm, but
      // failed when its lease runs out, as anywhere else.
      this.ctx.storage.kv.delete(RUN)
      await this.#run(task.id, holder)
    } else if (!await this.#reap(task)) {
      await this.ctx.storage.setAlarm(Math.min(Date.now() + LEASE_RECHECK_MS, task.expiresAt))
      return
    }
    await this.#schedule()
  }

  async #run(id: string, holder: string): Promise<void> {
    const runtime = this.#runtimeHere()
    const host: TaskHost = { env: this.env, waitUntil: (p) => this.ctx.waitUntil(p), deadline: Date.now() + ALARM_WALL_MS - FINAL_WRITE_MS }
    this.running++
    try {
      await this.#work(runtime, this.#live(id)).run(runtime, id, holder, host)
    } catch (e) {
      runtime.report(e, { during: 'task runner', requestId: id })
    } finally {
      this.running--
    }
  }

  /**
   * A lease that ran out with nobody polling: the work is failed as the first `tasks/get` would fail it
   * (the same transition, and listen streams hear of it). False when that failed (it is reported).
   */
  async #reap(task: TaskRecord): Promise<boolean> {
    if (task.status !== 'working' || !task.lease || task.lease.until > Date.now() || this.running > 0) return true
    const runtime = this.#runtimeHere()
    try {
      await this.#work(runtime, task).reap(runtime, task.id)
      return true
    } catch (e) {
      runtime.report(e, { during: 'task lease check', requestId: task.id })
      return false
    }
  }

  /** Who runs this record: a resumable request (src/resumable/) runs like a task, by the extension that keeps its messages. */
  #work(runtime: Runtime, task: TaskRecord | undefined): DurableWork {
    const resumable = Boolean(task?.work.resumable)
    const work = (resumable ? resumableOf(runtime) : tasksOf(runtime))?.work
    if (!work) throw new Error(`${resumable ? 'resumable requests are' : 'tasks are'} not served by this worker: add ${resumable ? 'resumable()' : 'tasks()'} to its extensions`)
    return work
  }
}
