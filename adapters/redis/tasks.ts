import type { Redis } from 'ioredis'
import type { JsonObject } from '../../src/core.js'
import type { TaskRecord, TaskStore } from '../../src/index.js'
import { connection, type RedisConnectionOptions } from './connection.js'

export type RedisTaskStoreOptions = RedisConnectionOptions

// A task is a hash of its version beside its JSON, so that the scripts compare versions without parsing
// JSON, and each write sets the expiry in the same step: a key never outlives the expiresAt it was written with.
// The owner's index (a sorted set by creation time, for the seed draft's tasks/list) lives as long as the
// longest-lived of its tasks: its expiry only ever moves later (without PEXPIREAT GT, which needs Redis 7).
const KEEP_INDEX = `
local function keepIndex(index, expiresAt)
  local left = redis.call('PTTL', index)
  local now = redis.call('TIME')
  if left < 0 or tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + left < tonumber(expiresAt) then
    redis.call('PEXPIREAT', index, expiresAt)
  end
end`

const CREATE = `${KEEP_INDEX}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'record', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
keepIndex(KEYS[2], ARGV[3])
return 1`

// Another program's key under the prefix (not a hash, or no record in it) is a mismatch, not an error.
// The record's log (a list beside it) takes its expiry too.
const PUT = `${KEEP_INDEX}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
  or redis.call('HEXISTS', KEYS[1], 'record') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[3], ARGV[4])
keepIndex(KEYS[2], ARGV[4])
return 1`

// A log is appended to only beside a live record, and expires with it: one round trip, whatever its length.
const APPEND = `
local left = redis.call('PTTL', KEYS[1])
if left <= 0 or redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return false end
local length = redis.call('RPUSH', KEYS[2], unpack(ARGV))
redis.call('PEXPIRE', KEYS[2], left)
return length`

/** Messages per RPUSH: Lua's unpack() has a limit on how many values it spreads. */
const APPEND_BATCH = 1000

type Scripted = Redis & {
  mcpEdgeTaskCreate(key: string, index: string, version: string, record: string, expiresAt: number, createdAt: number, id: string): Promise<number>
  mcpEdgeTaskPut(key: string, index: string, log: string, previous: string, version: string, record: string, expiresAt: number): Promise<number>
  mcpEdgeTaskAppend(key: string, log: string, ...messages: string[]): Promise<number | null>
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
 * Tasks in Redis, one key per task, shared by every instance that uses the same Redis and prefix. Each
 * operation is one round trip (scripts run by EVALSHA); a write is acknowledged once the primary has it,
 * so any instance reading the primary sees it next (a failover to a replica that lagged can still lose it).
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
 * const running = await serve(server, { store, extensions: [tasks()] })
 * running.http.once('close', () => void store.close())
 * ```
 */
export function redisTaskStore(options: RedisTaskStoreOptions = {}): TaskStore & { close(): Promise<void> } {
  const { prefix, close, ...connected } = connection(options, 'Redis task store')
  const redis = connected.redis as Scripted
  redis.defineCommand('mcpEdgeTaskCreate', { numberOfKeys: 2, lua: CREATE })
  redis.defineCommand('mcpEdgeTaskPut', { numberOfKeys: 3, lua: PUT })
  redis.defineCommand('mcpEdgeTaskAppend', { numberOfKeys: 2, lua: APPEND })
  const key = (id: string) => `${prefix}task:${id}`
  const log = (id: string) => `${prefix}log:${id}`
  const index = (owner: string) => `${prefix}owner:${owner}`
  const get = async (id: string) => {
    try {
      return parse(id, await redis.hget(key(id), 'record'))
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('WRONGTYPE')) return undefined
      throw e
    }
  }

  return {
    kind: 'redis',
    async create(task) {
      if (!(await redis.mcpEdgeTaskCreate(key(task.id), index(task.owner), String(task.version), JSON.stringify(task), task.expiresAt, task.createdAt, task.id))) {
        throw new Error(`task ${task.id} exists`)
      }
    },
    get,
    async put(task) {
      const written = await redis.mcpEdgeTaskPut(key(task.id), index(task.owner), log(task.id), String(task.version - 1), String(task.version), JSON.stringify(task), task.expiresAt)
      return written === 1
    },
    async append(id, messages) {
      let length: number | null = null
      for (let i = 0; i < messages.length; i += APPEND_BATCH) {
        length = await redis.mcpEdgeTaskAppend(key(id), log(id), ...messages.slice(i, i + APPEND_BATCH).map((m) => JSON.stringify(m)))
        if (length === null) return undefined
      }
      return length ?? undefined
    },
    async messages(id, from) {
      const [[failed, listed], [, length]] = (await redis.multi().lrange(log(id), from, -1).llen(log(id)).exec())! as [[Error | null, string[]], [unknown, number]]
      if (failed) throw failed
      return { messages: listed.map((m) => JSON.parse(m) as JsonObject), length }
    },
    async list(owner, cursor, limit) {
      // By rank after the cursor's: tasks that expired are dropped from the index as the pages pass them.
      let from = 0
      if (cursor !== undefined) {
        const rank = await redis.zrank(index(owner), cursor)
        if (rank === null) return { tasks: [] }
        from = rank + 1
      }
      const page: TaskRecord[] = []
      for (;;) {
        const ids = await redis.zrange(index(owner), String(from), String(from + limit))
        if (ids.length === 0) return { tasks: page }
        const tasks = await Promise.all(ids.map(get))
        const gone = ids.filter((_, i) => tasks[i]?.owner !== owner)
        if (gone.length > 0) await redis.zrem(index(owner), ...gone)
        for (const task of tasks) {
          if (task?.owner !== owner) continue
          if (page.length === limit) return { tasks: page, nextCursor: page[page.length - 1]!.id }
          page.push(task)
        }
        from += ids.length - gone.length
      }
    },
    close,
  }
}
