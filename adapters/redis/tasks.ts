import type { Redis } from 'ioredis'
import type { JsonObject } from '../../src/core.js'
import { StoreFull, type TaskRecord, type TaskStore } from '../../src/index.js'
import { connection, type RedisConnectionOptions } from './connection.js'

export interface RedisTaskStoreOptions extends RedisConnectionOptions {
  /**
   * Bytes of records (and their logs) the store keeps in Redis at most (default 256 MiB), counted across every
   * instance sharing the prefix: past it new records are refused (503); kept ones still grow within their own
   * bound (`maxRecordBytes`).
   */
  maxBytes?: number | undefined
}

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

// What the store holds is counted beside the records, for the limits (RecordLimits and maxBytes): every live
// record by id in a sorted set by expiry, its bytes in a hash and their sum in a counter; each client's records
// in a sorted set of their own, named in the record's hash. A record whose time has passed leaves the counts at
// the next create, swept by expiry, its bytes with it.
const COUNTS = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function sweep(live, sizes, bytes, now)
  local gone = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, 500)
  if #gone == 0 then return end
  local freed = 0
  for _, size in ipairs(redis.call('HMGET', sizes, unpack(gone))) do freed = freed + (tonumber(size) or 0) end
  redis.call('HDEL', sizes, unpack(gone))
  redis.call('ZREM', live, unpack(gone))
  redis.call('DECRBY', bytes, freed)
end`

// KEYS: record, owner index, live, sizes, bytes, the client's share. ARGV: version, record, expiresAt,
// createdAt, id, maxBytes, total ('' none), perClient ('' none: no client known).
// Returns 1, or 0 (the id exists), -1 (the client's share is taken), -2 (the store is full), -3 (its bytes are).
const CREATE = `${KEEP_INDEX}${COUNTS}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local now = clock()
sweep(KEYS[3], KEYS[4], KEYS[5], now)
local size = #ARGV[2]
if (tonumber(redis.call('GET', KEYS[5])) or 0) + size > tonumber(ARGV[6]) then return -3 end
if ARGV[7] ~= '' and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return -2 end
if ARGV[8] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
  if redis.call('ZCARD', KEYS[6]) >= tonumber(ARGV[8]) then return -1 end
  redis.call('ZADD', KEYS[6], ARGV[3], ARGV[5])
  keepIndex(KEYS[6], ARGV[3])
  redis.call('HSET', KEYS[1], 'share', KEYS[6])
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'record', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
keepIndex(KEYS[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
redis.call('HSET', KEYS[4], ARGV[5], size)
redis.call('INCRBY', KEYS[5], size)
return 1`

// Another program's key under the prefix (not a hash, or no record in it) is a mismatch, not an error.
// The record's log (a list beside it) takes its expiry too, and the counts its new size and expiry.
// KEYS: record, owner index, log, live, sizes, bytes. ARGV: previous version, version, record, expiresAt, id.
const PUT = `${KEEP_INDEX}
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
  or redis.call('HEXISTS', KEYS[1], 'record') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[3], ARGV[4])
keepIndex(KEYS[2], ARGV[4])
local before = tonumber(redis.call('HGET', KEYS[5], ARGV[5]))
if before then
  local size = #ARGV[3] + (tonumber(redis.call('HGET', KEYS[1], 'logBytes')) or 0)
  redis.call('HSET', KEYS[5], ARGV[5], size)
  redis.call('INCRBY', KEYS[6], size - before)
  redis.call('ZADD', KEYS[4], 'XX', ARGV[4], ARGV[5])
end
local share = redis.call('HGET', KEYS[1], 'share')
if share then
  redis.call('ZADD', share, 'XX', ARGV[4], ARGV[5])
  keepIndex(share, ARGV[4])
end
return 1`

// A log is appended to only beside a live record, and expires with it: one round trip, whatever its length.
// Its bytes count with the record's. KEYS: record, log, sizes, bytes. ARGV: id, then the messages.
const APPEND = `
local left = redis.call('PTTL', KEYS[1])
if left <= 0 or redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return false end
local length = redis.call('RPUSH', KEYS[2], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[2], left)
local added = 0
for i = 2, #ARGV do added = added + #ARGV[i] end
redis.call('HINCRBY', KEYS[1], 'logBytes', added)
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[3], ARGV[1], added)
  redis.call('INCRBY', KEYS[4], added)
end
return length`

/** Messages per RPUSH: Lua's unpack() has a limit on how many values it spreads. */
const APPEND_BATCH = 1000

type Scripted = Redis & {
  mcpEdgeTaskCreate(...keysThenArgs: (string | number)[]): Promise<number>
  mcpEdgeTaskPut(...keysThenArgs: (string | number)[]): Promise<number>
  mcpEdgeTaskAppend(...keysThenArgs: string[]): Promise<number | null>
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
  const { prefix, command, close, ...connected } = connection(options, 'Redis task store')
  const redis = connected.redis as Scripted
  redis.defineCommand('mcpEdgeTaskCreate', { numberOfKeys: 6, lua: CREATE })
  redis.defineCommand('mcpEdgeTaskPut', { numberOfKeys: 6, lua: PUT })
  redis.defineCommand('mcpEdgeTaskAppend', { numberOfKeys: 4, lua: APPEND })
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
  const counts = [`${prefix}live`, `${prefix}sizes`, `${prefix}bytes`] as const
  const key = (id: string) => `${prefix}task:${id}`
  const log = (id: string) => `${prefix}log:${id}`
  const index = (owner: string) => `${prefix}owner:${owner}`
  const get = async (id: string) => {
    try {
      return parse(id, await command('reading a task', () => redis.hget(key(id), 'record')))
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('WRONGTYPE')) return undefined
      throw e
    }
  }

  return {
    kind: 'redis',
    async create(task, limits) {
      const share = `${prefix}share:${limits?.client ?? ''}`
      const perClient = limits?.client === undefined ? '' : limits.perClient
      const create = () => redis.mcpEdgeTaskCreate(key(task.id), index(task.owner), ...counts, share,
        String(task.version), JSON.stringify(task), task.expiresAt, task.createdAt, task.id, maxBytes, limits?.total ?? '', perClient)
      const made = await command('creating a task', create)
      if (made === 0) throw new Error(`task ${task.id} exists`)
      if (made === -1) throw new StoreFull(`This client has ${perClient} records kept, its most`, 'client')
      if (made === -2) throw new StoreFull(`This server keeps ${limits!.total} records, its most`, 'server')
      if (made === -3) throw new StoreFull(`This server keeps ${maxBytes} bytes of records in Redis, its most`, 'server')
    },
    get,
    async put(task) {
      const put = () => redis.mcpEdgeTaskPut(key(task.id), index(task.owner), log(task.id), ...counts,
        String(task.version - 1), String(task.version), JSON.stringify(task), task.expiresAt, task.id)
      const written = await command('writing a task', put)
      return written === 1
    },
    async append(id, messages) {
      let length: number | null = null
      for (let i = 0; i < messages.length; i += APPEND_BATCH) {
        const batch = messages.slice(i, i + APPEND_BATCH).map((m) => JSON.stringify(m))
        length = await command('appending to a task\'s log', () => redis.mcpEdgeTaskAppend(key(id), log(id), counts[1], counts[2], id, ...batch))
        if (length === null) return undefined
      }
      return length ?? undefined
    },
    async messages(id, from) {
      const read = () => redis.multi().lrange(log(id), from, -1).llen(log(id)).exec()
      const [[failed, listed], [, length]] = (await command('reading a task\'s log', read))! as [[Error | null, string[]], [unknown, number]]
      if (failed) throw failed
      return { messages: listed.map((m) => JSON.parse(m) as JsonObject), length }
    },
    async list(owner, cursor, limit) {
      // By rank after the cursor's: tasks that expired are dropped from the index as the pages pass them.
      let from = 0
      if (cursor !== undefined) {
        const rank = await command('listing tasks', () => redis.zrank(index(owner), cursor))
        if (rank === null) return { tasks: [] }
        from = rank + 1
      }
      const page: TaskRecord[] = []
      for (;;) {
        const ids = await command('listing tasks', () => redis.zrange(index(owner), String(from), String(from + limit)))
        if (ids.length === 0) return { tasks: page }
        const tasks = await Promise.all(ids.map(get))
        const gone = ids.filter((_, i) => tasks[i]?.owner !== owner)
        if (gone.length > 0) await command('listing tasks', () => redis.zrem(index(owner), ...gone))
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
