import { createHash } from 'node:crypto'
import type { Cluster, Redis } from 'ioredis'

/**
 * PUBLISH, unless Redis's own clock is past the deadline the publisher set. A publish that waited in a
 * stalled Redis's socket (SIGSTOP, a long fork, a paused VM) is thus refused when Redis wakes up, instead of
 * reaching subscribers long after the caller was told it failed.
 */
const CHECK = `local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[3]) then return -1 end
`
/** ARGV: channel, message, deadline. */
const CLASSIC = `${CHECK}return redis.call('PUBLISH', ARGV[1], ARGV[2])`
/** On a Redis Cluster: SPUBLISH, the channel named as the key too, so the script runs on the node of its slot. */
const SHARDED = `${CHECK}return redis.call('SPUBLISH', KEYS[1], ARGV[2])`
const sha = (script: string) => createHash('sha1').update(script).digest('hex')

/**
 * How long the caller waits beyond the deadline before calling the publish failed: the reply of a publish
 * Redis accepted just in time must have room to arrive, and the clock offset may be off by half a round trip.
 */
const DEADLINE_SLACK_MS = 500

export interface DeadlinePublisher {
  /**
   * Resolves once Redis accepted it by `deadline` (ms since the epoch, our clock); rejects when it did not,
   * and then it never goes out.
   */
  publish(channel: string, message: string, deadline: number): Promise<void>
  /** Reads Redis's clock (TIME): deadlines are set in it, so the two machines' clocks need not agree. */
  sync(): Promise<void>
}

/** `sharded`: a Redis Cluster's sharded pub/sub (SPUBLISH), each channel published on the node of its slot. */
export function deadlinePublisher(redis: Redis | Cluster, sharded = false): DeadlinePublisher {
  /** Redis's clock minus ours, in ms; undefined until the first sync. */
  let offset: number | undefined
  const script = sharded ? SHARDED : CLASSIC
  const hash = sha(script)
  const run = async (args: [string, string, number]) => {
    // Sharded, the channel is the script's key as well: the cluster routes the script to its slot.
    const send = (how: 'evalsha' | 'eval', first: string) => (sharded ? redis[how](first, 1, args[0], ...args) : redis[how](first, 0, ...args))
    try {
      return await send('evalsha', hash)
    } catch (e) {
      // The script cache is empty after a restart or SCRIPT FLUSH: EVAL loads it again.
      if (!String(e).includes('NOSCRIPT')) throw e
      return send('eval', script)
    }
  }
  return {
    async sync() {
      const sent = Date.now()
      const [seconds, micros] = await redis.time()
      const now = Date.now()
      offset = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + now) / 2
    },
    publish(channel, message, deadline) {
      if (offset === undefined) return Promise.reject(new Error('Redis has not been reached yet'))
      return new Promise((resolve, reject) => {
        let settled = false
        const settle = (error?: Error) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          if (error) reject(error)
          else resolve()
        }
        const late = new Error('Redis did not accept the publish in time; it will not be sent')
        // setImmediate: a reply already in the socket is read first, even when the event loop was blocked.
        const timer = setTimeout(() => setImmediate(() => settle(late)), deadline - Date.now() + DEADLINE_SLACK_MS)
        run([channel, message, Math.floor(deadline + offset!)]).then(
          (reply) => settle(reply === -1 ? late : undefined),
          (e: unknown) => settle(e instanceof Error ? e : new Error(String(e))),
        )
      })
    },
  }
}
