import type { JsonObject } from '../protocol/jsonrpc.js'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled'])
export const isTerminal = (status: TaskStatus): boolean => TERMINAL.has(status)

/**
 * A task as stored: its wire fields, and everything another instance needs to run it again (the re-entrant
 * handler gets the tool call, the answers gathered so far and its memos). Plain JSON, so any store can keep
 * it; stores never look inside beyond `id`, `version` and `expiresAt`.
 */
export interface TaskRecord {
  readonly id: string
  /** The principal that created it; '' when requests are not authenticated. Nobody else may see it. */
  readonly owner: string
  /** Bumped by every write: what compare-and-set compares. Starts at 1. */
  readonly version: number
  readonly status: TaskStatus
  readonly statusMessage?: string | undefined
  /** ms since the epoch */
  readonly createdAt: number
  readonly updatedAt: number
  /** When the store may forget it (ms since the epoch): pushed on while it runs, fixed once terminal. */
  readonly expiresAt: number
  readonly pollIntervalMs: number
  /** What runs: the tool, its arguments and the request it came from (see src/tasks/work.ts). */
  readonly work: JsonObject
  /** Input requests not yet answered, by key (status input_required). */
  readonly inputRequests?: JsonObject | undefined
  /** Every answer received, by key: handed back to the handler when it runs again. */
  readonly answers: JsonObject
  /** Values the handler memoised (ctx.memo), kept across runs. */
  readonly memo: JsonObject
  /** The CallToolResult (status completed). */
  readonly result?: JsonObject | undefined
  /** The JSON-RPC error (status failed). */
  readonly error?: JsonObject | undefined
  /** Who runs it, until when (ms since the epoch) unless renewed; absent while it waits for input. */
  readonly lease?: { readonly holder: string; readonly until: number } | undefined
  /**
   * A resumable request's messages before its response, in order (src/resumable/), where the store keeps no
   * log beside the record (TaskStore.append).
   */
  readonly log?: readonly JsonObject[] | undefined
  /** A resumable request is cancelled and forgotten when no client came back for it by then (ms since the epoch). */
  readonly resumeBy?: number | undefined
  /** How many of `log` were written to a client's stream (sent, not known to be received). */
  readonly sent?: number | undefined
}

/**
 * What a new record is created within: its client's share of the store's live records (a principal, or an
 * anonymous client's address; none when neither is known) and every client's together. Without them a
 * client could fill memory or Redis with work it never comes back for (records keep their arguments).
 */
export interface RecordLimits {
  readonly client?: string | undefined
  /** Live records one client may have in the store. */
  readonly perClient: number
  /** Live records in the store, whoever made them. */
  readonly total: number
}

/** An option that must be a positive integer, or its default; `name` names it in the error (and its unit). */
export function positive(value: number | undefined, fallback: number, name: string, unit = ''): number {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v <= 0) throw new Error(`${name} must be a positive integer${unit}`)
  return v
}

/** A store refused a new record: its client has its whole share (`client`), or the store is full (`server`). */
export class StoreFull extends Error {
  constructor(message: string, readonly fault: 'client' | 'server') {
    super(message)
    this.name = 'StoreFull'
  }
}

/**
 * The TaskStore port: where tasks live between requests, shared by every instance serving one server. Three
 * operations are enough, because every change is a compare-and-set on `version` (src/tasks/records.ts
 * decides what may change; a store only keeps its promise of atomicity):
 * - `create` is durable when it resolves: an immediate `get` on any instance sees the task;
 * - `put` writes a task only over the version it was derived from, so a late writer cannot undo a terminal
 *   state it did not see;
 * - a task may be forgotten from `expiresAt` on, and must not be before.
 */
export interface TaskStore {
  /** What it is, in a word or two (`memory`, `redis`, `durable-objects`): what start-up lines show; optional. */
  readonly kind?: string | undefined
  /**
   * Stores a new task (version 1). Rejects if the id exists, and with StoreFull past `limits` (counted
   * atomically with the write, so that instances racing cannot overshoot them together).
   */
  create(task: TaskRecord, limits?: RecordLimits): Promise<void>
  /** The task, or undefined when it does not exist or has expired. */
  get(id: string): Promise<TaskRecord | undefined>
  /** Replaces the task if the stored one has version `task.version - 1`; false when it has not (or is gone). */
  put(task: TaskRecord): Promise<boolean>
  /**
   * Where the store runs tasks itself (a Durable Object per task): called instead of running the handler in
   * the instance that created or resumed the task, which leased it to `holder` (see src/tasks/runner.ts).
   */
  start?(id: string, holder: string): Promise<void>
  /**
   * One page of an owner's live tasks, oldest first, after `cursor` (the id last listed). Optional: only
   * the seed draft's `tasks/list` uses it, and a store without it (a Durable Object per task) has none.
   */
  list?(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string | undefined }>
  /**
   * Appends to the log kept beside a record (a resumable request's messages), which lives exactly as long as
   * the record; resolves to the log's length after, or undefined when the record is gone. Optional, with
   * `messages`: a store without them has the log rewritten inside the record with every message, which
   * costs what the log has grown to.
   */
  append?(id: string, messages: readonly JsonObject[]): Promise<number | undefined>
  /** The log beside a record from place `from` (0-based) on, and its whole length; empty when there is none. */
  messages?(id: string, from: number): Promise<TaskLog>
  /**
   * Since when (ms since the epoch) the store has kept every record it was given: moved on whenever it may have
   * lost records (a memory store's process restarted, a Redis restarted without persistence or flushed). 2025
   * session ids issued before it are refused, so that a session ended (DELETE) in a record now lost stays
   * ended (src/http/session/epoch.ts). Optional: a store that never loses a record before its `expiresAt`
   * needs none.
   */
  epoch?(): Promise<number>
  close?(): Promise<void>
}

/** Part of a record's log, and how long the whole is. */
export interface TaskLog {
  readonly messages: readonly JsonObject[]
  readonly length: number
}

export interface MemoryTaskStoreOptions {
  /** How often expired tasks are swept out (default 60 s); reads never return one whatever the sweep. */
  sweepMs?: number | undefined
  /**
   * Characters of records' JSON the store holds at most (default 64 Mi, some 150 MB of heap): past it new
   * records are refused (503); those stored may still grow within their own bound (`maxRecordBytes`).
   */
  maxBytes?: number | undefined
}

/** A page of an owner's live tasks (ids in creation order), from just after `cursor`. */
function pageOf(ids: Iterable<string>, live: (id: string) => TaskRecord | undefined, cursor: string | undefined, limit: number) {
  const page: TaskRecord[] = []
  let started = cursor === undefined
  for (const id of ids) {
    if (!started) {
      started = id === cursor
      continue
    }
    const task = live(id)
    if (!task) continue
    if (page.length === limit) return { tasks: page, nextCursor: page[page.length - 1]!.id }
    page.push(task)
  }
  return { tasks: page }
}

/** Adds `id` to the ids `index` keeps under `key`. */
function enter(index: Map<string, Set<string>>, key: string, id: string): void {
  let ids = index.get(key)
  if (!ids) index.set(key, (ids = new Set()))
  ids.add(id)
}

/** Takes `id` out of the ids under `key`, and the key with its last id. */
function leave(index: Map<string, Set<string>>, key: string | undefined, id: string): void {
  const ids = key === undefined ? undefined : index.get(key)
  ids?.delete(id)
  if (ids?.size === 0) index.delete(key!)
}

/**
 * Tasks in this process's memory: the default, for one process (a restart forgets them).
 *
 * @example
 * ```ts
 * import { McpServer, memoryTaskStore, tasks } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'reports', version: '1.0.0' })
 *   .tool('build_report', { description: 'Takes a while', task: 'optional' }, async () => 'Report ready')
 *
 * // The default store, swept more often; share a Redis one (redisTaskStore) between processes.
 * await serve(server, { extensions: [tasks({ store: memoryTaskStore({ sweepMs: 10_000 }), ttlMs: 15 * 60_000 })] })
 * ```
 */
export function memoryTaskStore(options: MemoryTaskStoreOptions = {}): TaskStore & { readonly size: number; readonly bytes: number } {
  const tasks = new Map<string, TaskRecord>()
  /** Ids by owner, in creation order: what list pages through. */
  const owned = new Map<string, Set<string>>()
  /** Ids by the client whose share they use (RecordLimits.client), and that client by id. */
  const shares = new Map<string, Set<string>>()
  const shareOf = new Map<string, string>()
  /** Logs beside records, by id: forgotten with them. */
  const logs = new Map<string, JsonObject[]>()
  /** Characters of JSON each record holds, its log included (and the log's alone), and all of them. */
  const sizes = new Map<string, number>()
  const logSizes = new Map<string, number>()
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024
  // Records live as long as this store: a new one (a restart) starts a new epoch.
  const since = Date.now()
  let bytes = 0
  const resize = (id: string, size: number) => {
    bytes += size - (sizes.get(id) ?? 0)
    sizes.set(id, size)
  }
  const forget = (task: TaskRecord) => {
    tasks.delete(task.id)
    logs.delete(task.id)
    resize(task.id, 0)
    sizes.delete(task.id)
    logSizes.delete(task.id)
    leave(owned, task.owner, task.id)
    leave(shares, shareOf.get(task.id), task.id)
    shareOf.delete(task.id)
  }
  const sweepMs = options.sweepMs ?? 60_000
  let timer: ReturnType<typeof setInterval> | undefined
  const sweep = () => {
    const now = Date.now()
    for (const task of tasks.values()) if (task.expiresAt <= now) forget(task)
    if (tasks.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
  const live = (id: string) => {
    const task = tasks.get(id)
    return task && task.expiresAt > Date.now() ? task : undefined
  }
  /** Refuses a record of `size` past the limits; expired records, swept or not, count for nothing. */
  const admit = (size: number, limits: RecordLimits | undefined) => {
    if (bytes + size > maxBytes || (limits && tasks.size >= limits.total)) sweep()
    if (bytes + size > maxBytes) throw new StoreFull(`This server keeps ${maxBytes} characters of records, its most`, 'server')
    if (!limits) return
    if (tasks.size >= limits.total) throw new StoreFull(`This server keeps ${limits.total} records, its most`, 'server')
    const mine = limits.client === undefined ? undefined : shares.get(limits.client)
    if (!mine || mine.size < limits.perClient) return
    for (const id of mine) if (!live(id)) forget(tasks.get(id)!)
    if (mine.size >= limits.perClient) throw new StoreFull(`This client has ${mine.size} records kept, its most`, 'client')
  }
  return {
    kind: 'memory',
    get size() {
      return tasks.size
    },
    get bytes() {
      return bytes
    },
    async create(task, limits) {
      if (live(task.id)) throw new Error(`task ${task.id} exists`)
      const size = JSON.stringify(task).length
      admit(size, limits)
      // An expired record of the same id, not swept yet, goes with its log.
      const stale = tasks.get(task.id)
      if (stale) forget(stale)
      tasks.set(task.id, task)
      resize(task.id, size)
      enter(owned, task.owner, task.id)
      if (limits?.client !== undefined) {
        enter(shares, limits.client, task.id)
        shareOf.set(task.id, limits.client)
      }
      if (timer === undefined) {
        timer = setInterval(sweep, sweepMs)
        // The sweep must not keep a process alive that has nothing else to do.
        ;(timer as { unref?: () => void }).unref?.()
      }
    },
    async get(id) {
      return live(id)
    },
    async put(task) {
      const current = live(task.id)
      if (!current || current.version !== task.version - 1) return false
      tasks.set(task.id, task)
      resize(task.id, JSON.stringify(task).length + (logSizes.get(task.id) ?? 0))
      return true
    },
    async append(id, messages) {
      if (!live(id)) return undefined
      let log = logs.get(id)
      if (!log) logs.set(id, (log = []))
      log.push(...messages)
      const added = JSON.stringify(messages).length
      logSizes.set(id, (logSizes.get(id) ?? 0) + added)
      resize(id, sizes.get(id)! + added)
      return log.length
    },
    async messages(id, from) {
      const log = (live(id) && logs.get(id)) || []
      return { messages: log.slice(from), length: log.length }
    },
    async list(owner, cursor, limit) {
      return pageOf(owned.get(owner) ?? [], live, cursor, limit)
    },
    epoch: async () => since,
    async close() {
      for (const map of [owned, shares, shareOf, logs, sizes, logSizes, tasks]) map.clear()
      bytes = 0
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
}
