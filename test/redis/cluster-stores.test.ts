/**
 * The Redis stores on a real Redis Cluster (three masters, a replica each): the task store's contract, its
 * limits and log, with each record's keys in one slot; used states and the shared secret; and a task store
 * that keeps serving across a master's failover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisSharedSecret, redisTaskStore, redisUsedStates } from '../../adapters/redis/index.js'
import { hasRedisServer } from '../helpers/redis.js'
import { ownRedisCluster } from '../helpers/redis-cluster.js'
import { describeTaskLimits, describeTaskListing, describeTaskLog, describeTaskStore, record } from '../helpers/task-store.js'

const enabled = hasRedisServer()
let cluster: Awaited<ReturnType<typeof ownRedisCluster>>
const stores: { close(): Promise<void> }[] = []
const opened = <T extends { close(): Promise<void> }>(store: T): T => (stores.push(store), store)
const seeds = () => cluster.seeds.split(',')
let store: ReturnType<typeof redisTaskStore>

beforeAll(async () => {
  if (!enabled) return
  cluster = await ownRedisCluster()
  store = opened(redisTaskStore({ cluster: seeds(), prefix: `test-${crypto.randomUUID()}:` }))
}, 60_000)
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()))
  await cluster?.stop()
})

describe.skipIf(!enabled)('Redis stores on a Redis Cluster', () => {
  describeTaskStore('redis cluster', () => store)
  describeTaskListing('redis cluster', () => store)
  describeTaskLog('redis cluster', () => store)
  describeTaskLimits('redis cluster', (maxBytes) => opened(redisTaskStore({ cluster: seeds(), prefix: `test-${crypto.randomUUID()}:`, maxBytes })))

  it('claims a used state once, and shares one secret, across the cluster', async () => {
    const used = opened(redisUsedStates({ cluster: seeds(), prefix: `test-${crypto.randomUUID()}:` }))
    const id = crypto.randomUUID()
    expect(await used.claim(id, Date.now() + 60_000)).toBe(true)
    expect(await used.claim(id, Date.now() + 60_000)).toBe(false)
    const prefix = `test-${crypto.randomUUID()}:`
    const [a, b] = [opened(redisSharedSecret({ cluster: seeds(), prefix })), opened(redisSharedSecret({ cluster: seeds(), prefix }))]
    expect(await a()).toBe(await b())
  })

  it("keeps serving tasks when a master fails over: a task written before (and replicated) is read after", async () => {
    const task = record()
    await store.create(task)
    // Replication is asynchronous: a write the master acknowledged can die with it. On loopback it reaches
    // the replica within a millisecond or so; this test is of the client finding the new master, not of that.
    await new Promise((r) => setTimeout(r, 200))
    const master = await cluster.masterOf(task.id)
    await cluster.kill(master.port)
    await cluster.waitForFailover(master.port)
    // The client finds the new master by itself (MOVED, then a refreshed slot map).
    for (let tries = 0; ; tries++) {
      try {
        expect((await store.get(task.id))?.id).toBe(task.id)
        break
      } catch (e) {
        if (tries > 20) throw e
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    expect(await store.put({ ...task, version: 2, status: 'completed' })).toBe(true)
  }, 60_000)
})
