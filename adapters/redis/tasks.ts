import type { Redis } from 'ioredis'
import type { JsonObject } from '../../src/core.js'
import { StoreFull, type RecordLimits, type TaskLog, type TaskRecord, type TaskStore } from '../../src/index.js'
import { connection, type Connection, type RedisConnectionOptions } from './connection.js'
import { defineCountScripts, TaskCounts, type CountScripts } from './task-counts.js'
import { APPEND, CREATE, EPOCH, INDEX, PUT } from './task-scripts.js'

export interface RedisTaskStoreOptions extends RedisConnectionOptions {
  /**
   * Bytes of records (and their logs) the store keeps in Redis at most (default 256 MiB), counted across every
   * instance sharing the prefix: past it new records are refused (503); kept ones still grow within their own
   * bound (`maxRecordBytes`).
   */
  maxBytes?: number | undefined
}

/** Messages per RPUSH: Lua's unpack() has a limit on how many values it spreads. */
const APPEND_BATCH = 1000

type Scripted = Redis & CountScripts & {
  mcpEdgeTaskCreate(key: string, version: string, record: string, expiresAt: number, share: string): Promise<number>
  mcpEdgeTaskIndex(index: string, expiresAt: number, createdAt: number | '', id: string): Promise<number>
  mcpEdgeTaskPut(key: string, log: string, previous: string, version: string, record: string, expiresAt: number): Promise<[0] | [1, number, string]>
  mcpEdgeTaskAppend(key: string, log: string, ...messages: string[]): Promise<number | null>
  mcpEdgeSessionEpoch(key: string): Promise<number>
}

// Someone else's value under the prefix is no task: it must not crash the request that happened on its key.
const parse = (id: string, text: string | null): TaskRecord | undefined => {
  if (text === null) return undefined
  try {
    const task = JSON.parse(text) as TaskRecord | null
    return typeof task === 'object' && task?.id === id && Number.isInteger(task.version) ? task : undefined
  } catch {
    return undefined
  }
}

/**
 * Tasks in Redis, one key per task, shared by every instance that uses the same Redis (or Redis Cluster) and
 * prefix. A read is one round trip, a write two (its place in the counts, then the record; scripts run by
 * EVALSHA, each on the keys of one slot); a write is acknowledged once the primary has it, so any instance
 * reading the primary sees it next (a failover to a replica that lagged can still lose it).
 *
 * @example
 * ```ts
 * import { McpServer, tasks } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 * import { redisTaskStore } from 'mcp-edge/redis'
 *
 * const server = new McpServer({ name: 'reports', version: '1.0.0' })
 *   .tool('build_report', { description: 'Takes a while', task: 'optional' }, async () => 'Report ready')
 *
 * // Any process sharing the Redis reads, answers or cancels a task another one made.
 * const store = redisTaskStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' })
 * // Closed once the server has (its shutdown still writes tasks' outcomes), before the process exits.
 * await serve(server, { store, extensions: [tasks()], onShutdown: () => store.close() })
 * ```
 */
export function redisTaskStore(options: RedisTaskStoreOptions = {}): TaskStore & { close(): Promise<void> } {
  return new RedisTaskStore(options)
}

class RedisTaskStore implements TaskStore {
  readonly kind = 'redis'
  readonly #redis: Scripted
  readonly #prefix: string
  readonly #counts: TaskCounts
  readonly #command: Connection['command']
  readonly close: () => Promise<void>

  constructor(options: RedisTaskStoreOptions) {
    const { redis, prefix, command, close } = connection(options, 'Redis task store')
    this.#redis = redis as Scripted
    this.#prefix = prefix
    this.#command = command
    this.close = close
    this.#counts = new TaskCounts(prefix, options.maxBytes ?? 256 * 1024 * 1024)
    redis.defineCommand('mcpEdgeTaskCreate', { numberOfKeys: 1, lua: CREATE })
    redis.defineCommand('mcpEdgeTaskIndex', { numberOfKeys: 1, lua: INDEX })
    redis.defineCommand('mcpEdgeTaskPut', { numberOfKeys: 2, lua: PUT })
    redis.defineCommand('mcpEdgeTaskAppend', { numberOfKeys: 2, lua: APPEND })
    redis.defineCommand('mcpEdgeSessionEpoch', { numberOfKeys: 1, lua: EPOCH })
    defineCountScripts(redis)
  }

  // A record and its log share the record's id as hash tag: one slot for both, whatever the cluster.
  #key = (id: string) => `${this.#prefix}task:{${id}}`
  #log = (id: string) => `${this.#prefix}log:{${id}}`
  #index = (owner: string) => `${this.#prefix}owner:{${owner}}`

  /**
   * Kept with no expiry beside the records: a Redis that lost them (restarted without persistence, flushed)
   * lost it too, and the first instance to ask after starts a new one.
   */
  epoch(): Promise<number> {
    return this.#command('reading the session epoch', () => this.#redis.mcpEdgeSessionEpoch(`${this.#prefix}session-epoch`))
  }

  async create(task: TaskRecord, limits?: RecordLimits): Promise<void> {
    const redis = this.#redis
    const record = JSON.stringify(task)
    const share = this.#counts.share(limits)
    const keys = this.#counts.keys(share)
    const { maxBytes } = this.#counts
    const perClient = share ? limits!.perClient : ''
    const reserve = () => redis.mcpEdgeTaskReserve(...keys, task.id, Buffer.byteLength(record), task.expiresAt, maxBytes, limits?.total ?? '', perClient)
    const reserved = await this.#command('counting a new task', reserve)
    if (reserved === -1) throw new StoreFull(`This client has ${perClient} records kept, its most`, 'client')
    if (reserved === -2) throw new StoreFull(`This server keeps ${limits!.total} records, its most`, 'server')
    if (reserved === -3) throw new StoreFull(`This server keeps ${maxBytes} bytes of records in Redis, its most`, 'server')
    const [made] = await this.#command('creating a task', () => Promise.all([
      redis.mcpEdgeTaskCreate(this.#key(task.id), String(task.version), record, task.expiresAt, share),
      redis.mcpEdgeTaskIndex(this.#index(task.owner), task.expiresAt, task.createdAt, task.id),
    ]))
    if (made === 1) return
    await this.#command('counting a new task', () => redis.mcpEdgeTaskRelease(...keys, task.id))
    throw new Error(`task ${task.id} exists`)
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    try {
      return parse(id, await this.#command('reading a task', () => this.#redis.hget(this.#key(id), 'record')))
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('WRONGTYPE')) return undefined
      throw e
    }
  }

  async put(task: TaskRecord): Promise<boolean> {
    const redis = this.#redis
    const put = () => redis.mcpEdgeTaskPut(this.#key(task.id), this.#log(task.id), String(task.version - 1), String(task.version), JSON.stringify(task), task.expiresAt)
    const written = await this.#command('writing a task', put)
    if (written[0] === 0) return false
    const [, size, share] = written
    await this.#command('counting a task', () => Promise.all([
      redis.mcpEdgeTaskAccount(...this.#counts.keys(share), task.id, size, '', task.expiresAt),
      redis.mcpEdgeTaskIndex(this.#index(task.owner), task.expiresAt, '', ''),
    ]))
    return true
  }

  async append(id: string, messages: readonly JsonObject[]): Promise<number | undefined> {
    const redis = this.#redis
    let length: number | null = null
    for (let i = 0; i < messages.length; i += APPEND_BATCH) {
      const batch = messages.slice(i, i + APPEND_BATCH).map((m) => JSON.stringify(m))
      const added = batch.reduce((n, m) => n + Buffer.byteLength(m), 0)
      // Counted beside the append, in the same round trip: a record gone since is no longer counted.
      ;[length] = await this.#command('appending to a task\'s log', () => Promise.all([
        redis.mcpEdgeTaskAppend(this.#key(id), this.#log(id), ...batch),
        redis.mcpEdgeTaskAccount(...this.#counts.keys(''), id, '', added, ''),
      ]))
      if (length === null) return undefined
    }
    return length ?? undefined
  }

  async messages(id: string, from: number): Promise<TaskLog> {
    const log = this.#log(id)
    const read = () => this.#redis.multi().lrange(log, from, -1).llen(log).exec()
    const [[failed, listed], [, length]] = (await this.#command('reading a task\'s log', read))! as [[Error | null, string[]], [unknown, number]]
    if (failed) throw failed
    return { messages: listed.map((m) => JSON.parse(m) as JsonObject), length }
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const redis = this.#redis
    const index = this.#index(owner)
    // By rank after the cursor's: tasks that expired are dropped from the index as the pages pass them.
    let from = 0
    if (cursor !== undefined) {
      const rank = await this.#command('listing tasks', () => redis.zrank(index, cursor))
      if (rank === null) return { tasks: [] }
      from = rank + 1
    }
    const page: TaskRecord[] = []
    for (;;) {
      const ids = await this.#command('listing tasks', () => redis.zrange(index, String(from), String(from + limit)))
      if (ids.length === 0) return { tasks: page }
      const tasks = await Promise.all(ids.map((id) => this.get(id)))
      const gone = ids.filter((_, i) => tasks[i]?.owner !== owner)
      if (gone.length > 0) await this.#command('listing tasks', () => redis.zrem(index, ...gone))
      for (const task of tasks) {
        if (task?.owner !== owner) continue
        if (page.length === limit) return { tasks: page, nextCursor: page[page.length - 1]!.id }
        page.push(task)
      }
      from += ids.length - gone.length
    }
  }
}
