/**
 * A 2025 session stream over the Redis backplane (issue 45, finding 3), against a real Redis: one channel
 * per topic it follows, given back when it stops following one and when it closes, and nothing left in the
 * local fan-out for a listener whose subscriptions all closed.
 */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { redisBackplane } from '../../adapters/redis/index.js'
import { createRuntime, SessionStream } from '../../src/core.js'
import { tasks, type ChangeEvent, type Resync } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { turns, until } from '../helpers/async.js'
import { heldTopics } from '../helpers/held-topics.js'
import { REDIS_URL } from '../helpers/redis.js'

const prefix = () => `test-${crypto.randomUUID()}:`
const admin = new Redis(REDIS_URL)
afterAll(() => admin.disconnect())
/** The channels Redis itself has subscribers on, under `p`. */
const channelsIn = async (p: string) => (await admin.pubsub('CHANNELS', `${p}*`) as string[]).length
const END: ChangeEvent = { topic: 'resource:test://end' }

/** Publishes `events` from another process's backplane, then an end marker: once it is heard, every event has come. */
async function publishAll(p: string, events: ChangeEvent[]) {
  const heard = redisBackplane({ url: REDIS_URL, prefix: p })
  let ended = false
  const ear = await heard.subscribe([END.topic], () => void (ended = true))
  const other = redisBackplane({ url: REDIS_URL, prefix: p })
  for (const event of [...events, END]) await other.publish(event)
  await until(() => ended, 5000, 'the end marker')
  await ear.close()
  await Promise.all([heard.close(), other.close()])
}

describe('the Redis backplane under a session stream', () => {
  it('keeps no listener in its local fan-out once each of its subscriptions closed', async () => {
    const p = prefix()
    const bp = redisBackplane({ url: REDIS_URL, prefix: p })
    const got: string[] = []
    const listener = (e: ChangeEvent | Resync) => void got.push('resync' in e ? 'resync' : e.topic)
    const a = await bp.subscribe(['resource:test://a'], listener)
    const b = await bp.subscribe(['resource:test://b'], listener)
    await a.close()
    await b.close()
    // Another listener makes the channel live again: the first must not hear it.
    const other: string[] = []
    const again = await bp.subscribe(['resource:test://b'], (e) => void other.push('resync' in e ? 'resync' : e.topic))
    await publishAll(p, [{ topic: 'resource:test://b' }])
    expect(other).toEqual(['resource:test://b'])
    expect(got).toEqual([])
    await again.close()
    await bp.close()
  })

  it('followed and unfollowed 20,000 times, holds one channel per topic it follows, and none once closed', async () => {
    const p = prefix()
    const bp = redisBackplane({ url: REDIS_URL, prefix: p })
    const held = heldTopics(bp)
    const runtime = createRuntime(createEverythingServer(), { backplane: held, extensions: [tasks()] })
    const written: string[] = []
    const stream = new SessionStream(runtime, { uris: [], client: undefined, expires: Infinity }, { write: (m) => void written.push(m.method), close: () => {} })
    stream.start()
    stream.follow('test://watched-resource', true)
    await until(() => held.open.size === 4, 5000, 'the lists and the resource subscribed')
    for (let i = 0; i < 20_000; i++) {
      stream.follow(`test://template/${i}/data`, true)
      stream.follow(`test://template/${i}/data`, false)
      if (i % 500 === 499) await turns(1)
    }
    await until(() => held.open.size === 4 && bp.channels === 4, 10_000, 'the unfollowed topics to be given back')
    expect(await channelsIn(p)).toBe(4)
    stream.end()
    await until(() => held.open.size === 0 && bp.channels === 0, 5000, 'every topic given back')
    expect(await channelsIn(p)).toBe(0)
    // What any instance publishes on a topic it followed reaches nothing of it now.
    const followed = [...held.seen].filter((t) => !t.startsWith('resource:test://template/'))
    const again = await held.subscribe(followed, () => {})
    await publishAll(p, followed.map((topic) => ({ topic })))
    expect(held.stray).toEqual([])
    expect(written).toEqual([])
    await again.close()
    await bp.close()
  })
})
