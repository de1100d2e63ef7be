import type { RecordLimits } from '../../src/index.js'
import { KEEP_INDEX } from './task-scripts.js'

// What a Redis task store holds, counted for the limits (RecordLimits and maxBytes) across every instance
// sharing its prefix: every live record by id in a sorted set by expiry, its bytes in a hash and their sum in
// a counter, each client's records in a sorted set of their own. All in one slot (the `{counts}` hash tag),
// so that one script checks and takes a place atomically, on a Redis Cluster too; a record whose time has
// passed leaves the counts at the next reservation, its bytes with it. The record's own scripts run
// apart (adapters/redis/task-scripts.ts): a record counts from just before it is written.

// After KEEP_INDEX, which brings clock().
const SWEEP = `
local function sweep(live, sizes, bytes, now)
  local gone = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'LIMIT', 0, 500)
  if #gone == 0 then return end
  local freed = 0
  for _, size in ipairs(redis.call('HMGET', sizes, unpack(gone))) do freed = freed + (tonumber(size) or 0) end
  redis.call('HDEL', sizes, unpack(gone))
  redis.call('ZREM', live, unpack(gone))
  redis.call('DECRBY', bytes, freed)
end`

// KEYS: live, sizes, bytes, share. ARGV: id, size, expiresAt, maxBytes, total ('' none), perClient ('' none:
// no client known). Returns 1, or -1 (the client's share is taken), -2 (the store is full), -3 (its bytes are).
const RESERVE = `${KEEP_INDEX}${SWEEP}
local now = clock()
sweep(KEYS[1], KEYS[2], KEYS[3], now)
local size = tonumber(ARGV[2])
if (tonumber(redis.call('GET', KEYS[3])) or 0) + size > tonumber(ARGV[4]) then return -3 end
if ARGV[5] ~= '' and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return -2 end
if ARGV[6] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return -1 end
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[1])
  keepIndex(KEYS[4], ARGV[3])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], size)
redis.call('INCRBY', KEYS[3], size)
return 1`

// A reservation whose record was not written after all. KEYS: live, sizes, bytes, share. ARGV: id.
const RELEASE = `
redis.call('DECRBY', KEYS[3], tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0)
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1`

// A record written again: its bytes, and its expiry in all and in its client's share. Only for a record
// counted still (its place not swept). KEYS: live, sizes, bytes, share. ARGV: id, size ('' unchanged),
// added bytes ('' none), expiresAt ('' unchanged).
const ACCOUNT = `${KEEP_INDEX}
local before = tonumber(redis.call('HGET', KEYS[2], ARGV[1]))
if not before then return 0 end
local size = ARGV[2] ~= '' and tonumber(ARGV[2]) or before + (tonumber(ARGV[3]) or 0)
redis.call('HSET', KEYS[2], ARGV[1], size)
redis.call('INCRBY', KEYS[3], size - before)
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[4], ARGV[1])
  if redis.call('ZADD', KEYS[4], 'XX', 'CH', ARGV[4], ARGV[1]) == 1 then keepIndex(KEYS[4], ARGV[4]) end
end
return 1`

/** How the counting scripts are called, once defined on a connection. */
export interface CountScripts {
  mcpEdgeTaskReserve(...keysThenArgs: (string | number)[]): Promise<number>
  mcpEdgeTaskRelease(...keysThenArgs: string[]): Promise<number>
  mcpEdgeTaskAccount(...keysThenArgs: (string | number)[]): Promise<number>
}

export function defineCountScripts(redis: { defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void }): void {
  redis.defineCommand('mcpEdgeTaskReserve', { numberOfKeys: 4, lua: RESERVE })
  redis.defineCommand('mcpEdgeTaskRelease', { numberOfKeys: 4, lua: RELEASE })
  redis.defineCommand('mcpEdgeTaskAccount', { numberOfKeys: 4, lua: ACCOUNT })
}

/** The counts of one prefix: the keys the scripts take, a client's share included ('' for none). */
export class TaskCounts {
  readonly #keys: readonly [string, string, string]
  readonly #prefix: string
  constructor(prefix: string, readonly maxBytes: number) {
    this.#prefix = `${prefix}{counts}`
    this.#keys = [`${this.#prefix}live`, `${this.#prefix}sizes`, `${this.#prefix}bytes`]
  }

  /** The key of a client's share; '' when no client is known (only the totals count). */
  share(limits: RecordLimits | undefined): string {
    return limits?.client === undefined ? '' : `${this.#prefix}share:${limits.client}`
  }

  /** The keys of a script, the share's in place of '' being any key of the slot (it is not touched then). */
  keys(share: string): [string, string, string, string] {
    return [...this.#keys, share || `${this.#prefix}share:`]
  }
}
