/** The Redis TaskStore against a real Redis: the contract every store passes, and what only Redis can get wrong. */
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { redisTaskStore } from '../../adapters/redis/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { describeTaskLimits, describeTaskListing, describeTaskLog, describeTaskStore, record } from '../helpers/task-store.js'

const prefix = () => `test-${crypto.randomUUID()}:`
const admin = new Redis(REDIS_URL)
const p = prefix()
const store = redisTaskStore({ url: REDIS_URL, prefix: p })
afterAll(async () => {
  await store.close()
  admin.disconnect()
})

describeTaskStore('redis', () => store)
describeTaskListing('redis', () => store)
describeTaskLog('redis', () => store)
const limited: { close(): Promise<void> }[] = []
afterAll(() => Promise.all(limited.map((s) => s.close())))
describeTaskLimits('redis', (maxBytes) => {
  const made = redisTaskStore({ url: REDIS_URL, prefix: prefix(), maxBytes })
  limited.push(made)
  return made
})

/** PTTL read between two clock readings: the expiry Redis holds must be `expiresAt` itself. */
async function expiryOf(key: string) {
  const before = Date.now()
  const pttl = await admin.pttl(key)
  const after = Date.now()
  return { pttl, earliest: before + pttl, latest: after + pttl }
}

describe('redis task store', () => {
  it('sets the key to expire at expiresAt on create and moves it with every put, shorter too', async () => {
    const task = record({ expiresAt: Date.now() + 60_000 })
    const key = `${p}task:{${task.id}}`
    await store.create(task)
    let e = await expiryOf(key)
    expect(e.earliest).toBeLessThanOrEqual(task.expiresAt)
    expect(e.latest).toBeGreaterThanOrEqual(task.expiresAt)

    const renewed = { ...task, version: 2, expiresAt: Date.now() + 600_000 }
    expect(await store.put(renewed)).toBe(true)
    e = await expiryOf(key)
    expect(e.earliest).toBeLessThanOrEqual(renewed.expiresAt)
    expect(e.latest).toBeGreaterThanOrEqual(renewed.expiresAt)

    // A task that ends gets its TTL from then, which may be sooner than a running one's.
    const ended = { ...renewed, version: 3, status: 'completed' as const, expiresAt: Date.now() + 5_000 }
    expect(await store.put(ended)).toBe(true)
    e = await expiryOf(key)
    expect(e.earliest).toBeLessThanOrEqual(ended.expiresAt)
    expect(e.latest).toBeGreaterThanOrEqual(ended.expiresAt)
  })

  it('leaves the stored value and its expiry untouched by a put over a stale version', async () => {
    const task = record()
    const key = `${p}task:{${task.id}}`
    await store.create(task)
    expect(await store.put({ ...task, version: 2, status: 'cancelled' })).toBe(true)
    const stored = await admin.hgetallBuffer(key)
    const { pttl } = await expiryOf(key)
    for (const version of [2, 4]) {
      expect(await store.put({ ...task, version, status: 'completed', result: { content: [] }, expiresAt: Date.now() + 900_000 })).toBe(false)
    }
    expect(await admin.hgetallBuffer(key)).toEqual(stored)
    expect((await expiryOf(key)).pttl).toBeLessThanOrEqual(pttl)
  })

  it('keeps the tasks of two prefixes apart, even under the same id', async () => {
    const other = redisTaskStore({ url: REDIS_URL, prefix: prefix() })
    const mine = record()
    await store.create(mine)
    expect(await other.get(mine.id)).toBeUndefined()
    expect(await other.put({ ...mine, version: 2 })).toBe(false)
    await other.create({ ...mine, owner: 'bob' })
    expect((await store.get(mine.id))?.owner).toBe('alice')
    expect((await other.get(mine.id))?.owner).toBe('bob')
    expect(await admin.exists(`${p}task:{${mine.id}}`)).toBe(1)
    await other.close()
  })

  it('reads someone else\'s key under the prefix as no task, and never writes over it', async () => {
    const foreign: [string, (key: string) => Promise<unknown>][] = [
      ['a string', (k) => admin.set(k, 'not a task')],
      ['a list', (k) => admin.rpush(k, 'x')],
      ['a hash without a record', (k) => admin.hset(k, 'version', '1')],
      ['a hash whose record is not JSON', (k) => admin.hset(k, 'record', '{"id":')],
      ['a hash whose record is JSON null', (k) => admin.hset(k, 'record', 'null')],
      ['a hash whose record names another id', (k) => admin.hset(k, 'record', JSON.stringify(record()))],
      ['a hash whose record\'s version is not a number', (k) => admin.hset(k, 'record', JSON.stringify({ ...record(), id: idOf(k), version: '1' }))],
    ]
    const idOf = (key: string) => key.slice(`${p}task:{`.length, -1)
    for (const [what, write] of foreign) {
      const task = record()
      const key = `${p}task:{${task.id}}`
      await write(key)
      const dump = await admin.dumpBuffer(key)
      expect(await store.get(task.id), what).toBeUndefined()
      expect(await store.put({ ...task, version: 2 }), what).toBe(false)
      await expect(store.create(task), what).rejects.toThrow(/exists/)
      expect(await admin.dumpBuffer(key), what).toEqual(dump)
    }
  })

  it('closes the connection it opened, and not one it was given', async () => {
    const client = new Redis(REDIS_URL)
    const shared = redisTaskStore({ client, prefix: p })
    const task = record()
    await shared.create(task)
    await shared.close()
    expect((await store.get(task.id))?.id).toBe(task.id)
    expect(await client.ping()).toBe('PONG')
    client.disconnect()

    const own = redisTaskStore({ url: REDIS_URL, prefix: p })
    expect(await own.get(task.id)).toEqual(task)
    await own.close()
    await expect(own.get(task.id)).rejects.toThrow()
  })
})
