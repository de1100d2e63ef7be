/**
 * The Redis backplane on a real Redis Cluster (three masters, a replica each): sharded pub/sub delivers across
 * processes' connections, topic by topic on the node of its slot; a master killed under publishes costs its
 * subscribers a resync, never a silent gap, and publishing goes on once its replica took over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisBackplane, type RedisBackplane } from '../../adapters/redis/index.js'
import { isResync, resourceUpdated, type ChangeEvent, type Resync } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { hasRedisServer } from '../helpers/redis.js'
import { ownRedisCluster } from '../helpers/redis-cluster.js'

const enabled = hasRedisServer()
let cluster: Awaited<ReturnType<typeof ownRedisCluster>>
const open: RedisBackplane[] = []
const backplane = (prefix: string) => {
  const made = redisBackplane({ cluster: cluster.seeds.split(','), prefix })
  open.push(made)
  return made
}

beforeAll(async () => {
  if (enabled) cluster = await ownRedisCluster()
}, 60_000)
afterAll(async () => {
  await Promise.all(open.map((b) => b.close()))
  await cluster?.stop()
})

/** Topics whose channels fall on every master: the names are enough, slots are spread by CRC16. */
const topics = Array.from({ length: 12 }, (_, i) => resourceUpdated(`test://r${i}`).topic)

describe.skipIf(!enabled)('redis backplane on a Redis Cluster', () => {
  it('delivers every change to the subscribers of its topic on another connection, exactly once', async () => {
    const prefix = `test-${crypto.randomUUID()}:`
    const [a, b] = [backplane(prefix), backplane(prefix)]
    const got = new Map<string, (ChangeEvent | Resync)[]>(topics.map((t) => [t, []]))
    const subs = await Promise.all(topics.map((t) => a.subscribe([t], (e) => void got.get(t)!.push(e))))
    for (const [i, t] of topics.entries()) await b.publish({ topic: t, data: { n: i } })
    await until(() => [...got.values()].every((events) => events.some((e) => !isResync(e))))
    await new Promise((r) => setTimeout(r, 100))
    // A resync costs a refetch, never a change: a cluster still settling (a loaded machine) may cause one.
    for (const [i, t] of topics.entries()) expect(got.get(t)!.filter((e) => !isResync(e))).toEqual([{ topic: t, data: { n: i } }])
    expect(a.channels).toBe(topics.length)
    await Promise.all(subs.map((s) => s.close()))
    expect(a.channels).toBe(0)
  })

  it('gives every subscriber every change or a resync when a master dies under publishes, and publishes again after the failover', async () => {
    const prefix = `test-${crypto.randomUUID()}:`
    const [a, b] = [backplane(prefix), backplane(prefix)]
    const got = new Map<string, (ChangeEvent | Resync)[]>(topics.map((t) => [t, []]))
    await Promise.all(topics.map((t) => a.subscribe([t], (e) => void got.get(t)!.push(e))))
    const victim = await cluster.masterOf(`${prefix}${topics[0]}`)
    const onVictim: string[] = []
    for (const t of topics) if ((await cluster.masterOf(`${prefix}${t}`)).port === victim.port) onVictim.push(t)
    let n = 0
    const sent = new Map<string, number[]>(topics.map((t) => [t, []]))
    const publishing = (async () => {
      for (const end = Date.now() + 12_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
        for (const t of topics) {
          const i = n++
          // A publish reported failed may be lost; one reported sent must arrive, or a resync must.
          if (await b.publish({ topic: t, data: { n: i } }).then(() => true, () => false)) sent.get(t)!.push(i)
        }
      }
    })()
    await new Promise((r) => setTimeout(r, 1000))
    await cluster.kill(victim.port)
    await cluster.waitForFailover(victim.port)
    await publishing
    // The last change of each topic, sent after the failover, arrives.
    await until(() => topics.every((t) => got.get(t)!.some((e) => !isResync(e) && e.data?.n === sent.get(t)!.at(-1))), 15_000)
    for (const t of topics) {
      const events = got.get(t)!
      const delivered = new Set(events.filter((e): e is ChangeEvent => !isResync(e)).map((e) => e.data!.n as number))
      const missed = sent.get(t)!.filter((i) => !delivered.has(i))
      // Nothing delivered twice, and whatever was missed is followed by a resync.
      expect(delivered.size).toBe(events.filter((e) => !isResync(e)).length)
      if (missed.length > 0) expect([t, events.some(isResync)]).toEqual([t, true])
    }
    // Its subscriptions on the dead master were lost for a while: their streams were told to refetch.
    for (const t of onVictim) expect([t, got.get(t)!.some(isResync)]).toEqual([t, true])
    // Publishes on the victim's slots failed for a while at most, then went out again.
    const victimTopics = topics.filter((t) => sent.get(t)!.length > 0)
    expect(victimTopics).toEqual(topics)
  }, 90_000)
})
