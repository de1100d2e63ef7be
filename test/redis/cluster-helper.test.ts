/** The Redis Cluster helper itself: a killed master's keys are served again by its promoted replica. */
import { afterAll, describe, expect, it } from 'vitest'
import { hasRedisServer } from '../helpers/redis.js'
import { ownRedisCluster, redisCli } from '../helpers/redis-cluster.js'

describe.skipIf(!hasRedisServer())('ownRedisCluster', () => {
  let cluster: Awaited<ReturnType<typeof ownRedisCluster>> | undefined
  afterAll(() => cluster?.stop())

  it('fails a killed master over to its replica, which has the key', async () => {
    cluster = await ownRedisCluster()
    expect(cluster.nodes).toHaveLength(6)
    expect(cluster.seeds.split(',')).toEqual(cluster.nodes.map((n) => `127.0.0.1:${n.port}`))

    const key = `cluster-helper-${crypto.randomUUID()}`
    // -c follows the MOVED reply to the key's master, whichever node is asked.
    expect((await redisCli(cluster.nodes[0]!.port, '-c', 'SET', key, 'kept')).trim()).toBe('OK')
    const before = await cluster.masterOf(key)
    expect((await redisCli(before.port, 'GET', key)).trim()).toBe('kept')
    // Replication is asynchronous: the key survives the crash only once the replica has acknowledged it.
    expect((await redisCli(before.port, 'WAIT', '1', '1000')).trim()).toBe('1')

    await cluster.kill(before.port)
    await cluster.waitForFailover(before.port)
    const after = await cluster.masterOf(key)
    expect(after.port).not.toBe(before.port)
    // Without -c: the new master answers for the slot itself rather than redirecting.
    expect((await redisCli(after.port, 'GET', key)).trim()).toBe('kept')
  }, 60_000)
})
