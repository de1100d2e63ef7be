/** The Redis backplane against a real Redis server: the machine's (REDIS_URL) and one of the test's own. */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { redisBackplane, type RedisBackplane } from '../../adapters/redis/index.js'
import { isResync, listChanged, resourceUpdated, RESYNC, type ChangeEvent, type Resync } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { ownRedis, REDIS_URL } from '../helpers/redis.js'

/**
 * Redis hands a subscriber connection its messages in the order the server accepted the publishes: once a
 * last event has arrived, every earlier one that was ever going to has too.
 */
const END: ChangeEvent = resourceUpdated('test://end')
const isEnd = (e: ChangeEvent | Resync | unknown) => JSON.stringify(e) === JSON.stringify(END)
const prefix = () => `test-${crypto.randomUUID()}:`
const admin = new Redis(REDIS_URL)
afterAll(() => admin.disconnect())

describe('redis backplane', () => {
  it('delivers across connections, exactly once, to the matching topics only', async () => {
    const p = prefix()
    const a = redisBackplane({ url: REDIS_URL, prefix: p })
    const b = redisBackplane({ url: REDIS_URL, prefix: p })
    const got: (ChangeEvent | Resync)[] = []
    const sub = await a.subscribe(['list:tools', 'resource:test://x', 'resource:test://end'], (e) => void got.push(e))
    await b.publish(listChanged('tools'))
    await b.publish(listChanged('prompts'))
    await a.publish(resourceUpdated('test://x'))
    await b.publish(resourceUpdated('test://y'))
    await b.publish(END)
    await until(() => got.some(isEnd))
    expect(got).toEqual([listChanged('tools'), resourceUpdated('test://x'), END])
    await sub.close()
    await a.close()
    await b.close()
  })

  it('multiplexes topics on one connection, reference-counted', async () => {
    const p = prefix()
    const bp = redisBackplane({ url: REDIS_URL, prefix: p, redis: { connectionName: p.slice(0, -1) } })
    const channels = async () => (await admin.pubsub('CHANNELS', `${p}*`) as string[]).sort()
    const s1 = await bp.subscribe(['list:tools', 'resource:a'], () => {})
    const s2 = await bp.subscribe(['list:tools'], () => {})
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => bp.subscribe([`resource:r${i}`], () => {})))
    expect(await channels()).toHaveLength(52)
    // One publisher and one subscriber connection, however many topics.
    const mine = (await admin.client('LIST') as string).split('\n').filter((l) => l.includes(`name=${p.slice(0, -1)} `))
    expect(mine).toHaveLength(2)
    await Promise.all(many.map((s) => s.close()))
    expect(await channels()).toEqual([`${p}list:tools`, `${p}resource:a`])
    expect(bp.channels).toBe(2)
    await s1.close()
    await s1.close() // twice is harmless
    expect(await channels()).toEqual([`${p}list:tools`])
    await s2.close()
    expect(await channels()).toEqual([])
    await bp.close()
  })

  it('keeps prefixes apart and ignores messages that are not events', async () => {
    const p = prefix()
    const bp = redisBackplane({ url: REDIS_URL, prefix: p })
    const other = redisBackplane({ url: REDIS_URL, prefix: prefix() })
    const got: unknown[] = []
    // Subscribed to list:secrets too, so that a message naming it on another channel would have a taker.
    await bp.subscribe(['list:tools', 'list:secrets', 'resource:test://end'], (e) => void got.push(e))
    await other.publish(listChanged('tools'))
    await admin.publish(`${p}list:tools`, 'not json')
    await admin.publish(`${p}list:tools`, '{"topic":"list:secrets"}') // names another topic than its channel
    await admin.publish(`${p}list:tools`, '{"topic":"list:tools","data":"not an object"}')
    await admin.publish(`${p}list:tools`, '{"topic":"list:tools","data":{"n":1}}')
    await admin.publish(`${p}resource:test://end`, JSON.stringify(END))
    await until(() => got.some(isEnd))
    expect(got).toEqual([{ topic: 'list:tools', data: { n: 1 } }, END])
    await bp.close()
    await other.close()
  })

  it('survives a Redis restart: subscriptions come back and every subscriber gets a resync', async () => {
    const redis = await ownRedis()
    const bp = redisBackplane({ url: redis.url })
    try {
      const got: (ChangeEvent | Resync)[] = []
      await bp.subscribe(['list:tools', 'resource:test://end'], (e) => void got.push(e))
      await redis.stop()
      // Fails at once, and is not sent later either.
      await expect(bp.publish(listChanged('tools'))).rejects.toThrow()
      await redis.start()
      await until(() => got.some(isResync), 10_000)
      await bp.publish(listChanged('tools'))
      await bp.publish(END)
      await until(() => got.some(isEnd))
      expect(got).toEqual([RESYNC, listChanged('tools'), END])
    } finally {
      await bp.close()
      await redis.stop()
    }
  }, 30_000)
})

/** Publishes once Redis takes publishes again: after a resume, the connection may need a moment. */
async function publishWhenBack(bp: RedisBackplane, event: ChangeEvent): Promise<void> {
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 20))) {
    try {
      return await bp.publish(event)
    } catch (e) {
      if (Date.now() > end) throw e
    }
  }
}

describe('redis backplane under a stalled Redis (SIGSTOP)', () => {
  it('a publish Redis did not accept in time fails, and is not delivered when Redis wakes up', async () => {
    const redis = await ownRedis()
    // No heartbeat within the test: the late publish and the last one share a connection, so arrive in order.
    const bp = redisBackplane({ url: redis.url, publishTimeoutMs: 300, heartbeatMs: 60_000 })
    // A plain subscriber, not the backplane's, so that nothing but the late publish could bring the event.
    const watcher = new Redis(redis.url)
    const seen: unknown[] = []
    watcher.on('message', (_channel, message: string) => void seen.push(JSON.parse(message)))
    try {
      await watcher.subscribe('mcp-edge:list:tools', 'mcp-edge:resource:test://end')
      await bp.publish(listChanged('prompts')) // connected, its clock read
      redis.pause()
      await expect(bp.publish(listChanged('tools'))).rejects.toThrow()
      redis.resume()
      await publishWhenBack(bp, END)
      await until(() => seen.some(isEnd))
      expect(seen).toEqual([END])
    } finally {
      watcher.disconnect()
      await bp.close()
      await redis.stop()
    }
  }, 30_000)

  it('a listen subscribing while Redis stalls is answered within the wait, and told to refetch once live', async () => {
    const redis = await ownRedis()
    const bp = redisBackplane({ url: redis.url, subscribeWaitMs: 200, heartbeatMs: 200 })
    try {
      await bp.publish(listChanged('prompts')) // connected
      redis.pause()
      const got: (ChangeEvent | Resync)[] = []
      const subscribed = bp.subscribe(['list:tools', 'resource:test://end'], (e) => void got.push(e))
      let settled = false
      void subscribed.then(() => (settled = true))
      await until(() => settled, 5_000, 'subscribe to resolve while Redis is stopped')
      redis.resume()
      await until(() => got.some(isResync), 10_000, 'the refetch cue')
      await publishWhenBack(bp, END)
      await until(() => got.some(isEnd))
      expect(got.filter(isResync).length).toBeGreaterThanOrEqual(1)
      await (await subscribed).close()
    } finally {
      await bp.close()
      await redis.stop()
    }
  }, 30_000)

  it('a stalled subscriber connection is noticed by its heartbeat and resyncs like a closed one', async () => {
    const redis = await ownRedis()
    const errors: unknown[] = []
    const bp = redisBackplane({ url: redis.url, heartbeatMs: 200, onError: (e) => void errors.push(e) })
    try {
      const got: (ChangeEvent | Resync)[] = []
      await bp.subscribe(['list:tools', 'resource:test://end'], (e) => void got.push(e))
      redis.pause()
      await until(() => errors.some((e) => String(e).includes('did not answer')), 5_000, 'the stall to be reported')
      // The first report may be the publisher's: stay stopped for several heartbeats, so that the
      // subscriber's goes unanswered too (a ping answered in time means nothing was missed, no resync).
      await new Promise((r) => setTimeout(r, 1000))
      redis.resume()
      await until(() => got.some(isResync), 10_000, 'the resync')
      await publishWhenBack(bp, END)
      await until(() => got.some(isEnd))
      expect(got[0]).toEqual(RESYNC)
    } finally {
      await bp.close()
      await redis.stop()
    }
  }, 30_000)
})

describe('redis backplane under a Redis that holds writes (CLIENT PAUSE WRITE)', () => {
  /** Redis's clock (TIME), in ms since the epoch. */
  const redisNow = async (redis: Redis) => {
    const [seconds, micros] = await redis.time()
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
  }

  it('a publish Redis runs only after its deadline is refused by Redis itself: it fails, and nothing is delivered', async () => {
    const redis = await ownRedis()
    const timeoutMs = 200
    const bp = redisBackplane({ url: redis.url, publishTimeoutMs: timeoutMs, heartbeatMs: 60_000 })
    const admin = new Redis(redis.url)
    const watcher = new Redis(redis.url)
    const seen: unknown[] = []
    watcher.on('message', (_channel, message: string) => void seen.push(JSON.parse(message)))
    try {
      await watcher.subscribe('mcp-edge:list:tools', 'mcp-edge:resource:test://end')
      await bp.publish(listChanged('prompts')) // connected, its clock read, the script loaded
      // Scripts and PUBLISH wait in Redis; TIME and UNPAUSE still run. Unlike a SIGSTOP, Redis is then let go
      // right after its own clock passes the deadline: its reply comes long before the publisher's local
      // timer (500 ms later) gives up, so only the script's own check can refuse the publish.
      await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE')
      // Its outcome is taken at once: the refusal may come in while the test still awaits UNPAUSE's reply.
      const published = bp.publish(listChanged('tools')).then(() => 'sent', (e: Error) => e.message)
      const deadline = Date.now() + timeoutMs // no earlier than the publish's own (same host, same clock)
      while ((await redisNow(admin)) <= deadline + 20) await new Promise((r) => setTimeout(r, 5))
      await admin.call('CLIENT', 'UNPAUSE')
      expect(await published).toBe('Redis did not accept the publish in time; it will not be sent')
      await bp.publish(END)
      await until(() => seen.some(isEnd))
      expect(seen).toEqual([END])
    } finally {
      watcher.disconnect()
      admin.disconnect()
      await bp.close()
      await redis.stop()
    }
  }, 30_000)
})

describe('redis backplane options', () => {
  it('publishes under the mcp-edge: prefix by default', async () => {
    const listener = new Redis(REDIS_URL)
    const seen: string[] = []
    await listener.subscribe('mcp-edge:list:tools')
    listener.on('message', (channel) => void seen.push(channel))
    const bp = redisBackplane({ url: REDIS_URL })
    await bp.publish(listChanged('tools'))
    await until(() => seen.length > 0)
    expect(seen).toEqual(['mcp-edge:list:tools'])
    await bp.close()
    listener.disconnect()
  })

  it('leaves a client it was given connected when it closes; closes its own', async () => {
    const client = new Redis(REDIS_URL)
    const shared = redisBackplane({ client, prefix: prefix() })
    await shared.subscribe(['list:tools'], () => {})
    await shared.publish(listChanged('tools'))
    await shared.close()
    expect(await client.ping()).toBe('PONG')
    client.disconnect()
  })
})
