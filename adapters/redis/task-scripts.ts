// The scripts that keep task records (adapters/redis/tasks.ts). Each touches the keys of one slot only, so that
// they run on a Redis Cluster too: a record and its log share the record's id as hash tag, an owner's index
// has its own, and what is counted for the limits lives apart (adapters/redis/task-counts.ts).

/** Milliseconds since the epoch by Redis' own clock. */
export const CLOCK = `
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`

// An index (a sorted set) lives as long as the longest-lived of what it lists: its expiry only ever moves
// later (without PEXPIREAT GT, which needs Redis 7).
export const KEEP_INDEX = `${CLOCK}
local function keepIndex(index, expiresAt)
  local left = redis.call('PTTL', index)
  if left < 0 or clock() + left < tonumber(expiresAt) then
    redis.call('PEXPIREAT', index, expiresAt)
  end
end`

// A task is a hash of its version beside its JSON, so that the scripts compare versions without parsing
// JSON, and each write sets the expiry in the same step: a key never outlives the expiresAt it was written
// with. The hash also names the client share the record counts in ('' none), for the writes after.
// KEYS: record. ARGV: version, record, expiresAt, share. Returns 1, or 0 when the id exists.
export const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'record', ARGV[2], 'share', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1`

// The owner's index (by creation time, for the seed draft's tasks/list). KEYS: index. ARGV: expiresAt,
// createdAt, id ('' when only its expiry moves on).
export const INDEX = `${KEEP_INDEX}
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3]) end
keepIndex(KEYS[1], ARGV[1])
return 1`

// Another program's key under the prefix (not a hash, or no record in it) is a mismatch, not an error.
// The record's log (a list beside it) takes its expiry too. KEYS: record, log. ARGV: previous version,
// version, record, expiresAt. Returns {0}, or {1, bytes of the record and its log, its share}.
export const PUT = `
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'version') ~= ARGV[1]
  or redis.call('HEXISTS', KEYS[1], 'record') == 0 then return {0} end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
local logged = tonumber(redis.call('HGET', KEYS[1], 'logBytes')) or 0
return {1, #ARGV[3] + logged, redis.call('HGET', KEYS[1], 'share') or ''}`

// A log is appended to only beside a live record, and expires with it: one round trip, whatever its length.
// KEYS: record, log. ARGV: the messages. Returns the log's length, or false when the record is gone.
export const APPEND = `
local left = redis.call('PTTL', KEYS[1])
if left <= 0 or redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return false end
local length = redis.call('RPUSH', KEYS[2], unpack(ARGV))
redis.call('PEXPIRE', KEYS[2], left)
local added = 0
for i = 1, #ARGV do added = added + #ARGV[i] end
redis.call('HINCRBY', KEYS[1], 'logBytes', added)
return length`

// The session epoch (TaskStore.epoch): the time kept, else now by Redis' clock, kept from now on. KEYS: epoch.
export const EPOCH = `${CLOCK}
local kept = redis.call('GET', KEYS[1])
if kept then return tonumber(kept) end
local now = clock()
redis.call('SET', KEYS[1], now)
return now`
