/**
 * What every TaskStore must do (the port in src/state/tasks.ts), as one set of tests each implementation
 * runs against its real backend: memory here, Redis against the real server, the Durable Object in workerd.
 */
import { describe, expect, it } from 'vitest'
import { StoreFull, type TaskRecord, type TaskStore } from '../../src/index.js'

let counter = 0
export function record(patch: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now()
  return {
    id: `contract-${now}-${counter++}-${Math.random().toString(36).slice(2, 8)}`,
    owner: 'alice', version: 1, status: 'working', createdAt: now, updatedAt: now, expiresAt: now + 60_000,
    pollIntervalMs: 1000, work: { tool: 'slow', arguments: { n: 1 } }, answers: {}, memo: {}, lease: { holder: 'h1', until: now + 30_000 },
    ...patch,
  }
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function describeTaskStore(name: string, store: () => TaskStore): void {
  describe(`TaskStore contract: ${name}`, () => {
    it('gives back what was created, byte for byte, on the very next read', async () => {
      const task = record({ inputRequests: { k: { method: 'elicitation/create', params: { message: 'ü 🎉' } } }, result: { content: [] } })
      await store().create(task)
      expect(await store().get(task.id)).toEqual(task)
    })

    it('refuses to create an id twice, keeping the first', async () => {
      const task = record()
      await store().create(task)
      await expect(store().create({ ...task, owner: 'mallory' })).rejects.toThrow()
      expect((await store().get(task.id))?.owner).toBe('alice')
    })

    it('answers undefined for an id it never had', async () => {
      expect(await store().get('never-created-0000000000')).toBeUndefined()
    })

    it('puts only over the version the write was derived from', async () => {
      const task = record()
      await store().create(task)
      expect(await store().put({ ...task, version: 3, status: 'completed' })).toBe(false)
      expect(await store().put({ ...task, version: 1, status: 'completed' })).toBe(false)
      expect(await store().put({ ...task, version: 2, status: 'cancelled' })).toBe(true)
      expect(await store().put({ ...task, version: 2, status: 'completed' })).toBe(false)
      expect(await store().get(task.id)).toMatchObject({ version: 2, status: 'cancelled' })
    })

    it('lets exactly one of two concurrent writers of the same version win', async () => {
      const task = record()
      await store().create(task)
      const results = await Promise.all([
        store().put({ ...task, version: 2, status: 'completed' }),
        store().put({ ...task, version: 2, status: 'cancelled' }),
      ])
      expect(results.filter(Boolean)).toHaveLength(1)
      expect((await store().get(task.id))?.status).toBe(results[0] ? 'completed' : 'cancelled')
    })

    it('refuses a put for a task it does not have', async () => {
      expect(await store().put(record({ version: 2 }))).toBe(false)
    })

    it('keeps a task until expiresAt and forgets it after', async () => {
      const task = record({ expiresAt: Date.now() + 400 })
      await store().create(task)
      await wait(150)
      expect(await store().get(task.id)).toBeDefined()
      await wait(400)
      expect(await store().get(task.id)).toBeUndefined()
      expect(await store().put({ ...task, version: 2 })).toBe(false)
    })

    it('refuses a put over a task that has expired, though nothing swept it out yet: it stays gone', async () => {
      // Expired by its own last write, with no turn of the event loop since: no sweep can have run.
      const task = record()
      await store().create(task)
      expect(await store().put({ ...task, version: 2, expiresAt: Date.now() - 1 })).toBe(true)
      expect(await store().put({ ...task, version: 3, expiresAt: Date.now() + 60_000 })).toBe(false)
      expect(await store().get(task.id)).toBeUndefined()
    })

    it('moves expiry with each put: a task renewed in time outlives its first expiresAt', async () => {
      const task = record({ expiresAt: Date.now() + 300 })
      await store().create(task)
      await wait(100)
      expect(await store().put({ ...task, version: 2, expiresAt: Date.now() + 2000 })).toBe(true)
      await wait(400)
      expect((await store().get(task.id))?.version).toBe(2)
    })
  })
}

/** For stores that keep a log beside each record (TaskStore.append and messages, for resumable requests). */
export function describeTaskLog(name: string, store: () => TaskStore): void {
  const message = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: n } })
  describe(`TaskStore log: ${name}`, () => {
    it('appends in order, batch after batch, and reads from any place on with the whole length', async () => {
      const task = record()
      await store().create(task)
      expect(await store().messages!(task.id, 0)).toEqual({ messages: [], length: 0 })
      expect(await store().append!(task.id, [message(1), message(2)])).toBe(2)
      expect(await store().append!(task.id, [message(3)])).toBe(3)
      expect(await store().messages!(task.id, 0)).toEqual({ messages: [message(1), message(2), message(3)], length: 3 })
      expect(await store().messages!(task.id, 2)).toEqual({ messages: [message(3)], length: 3 })
      expect(await store().messages!(task.id, 3)).toEqual({ messages: [], length: 3 })
      // The record itself is not rewritten by an append.
      expect(await store().get(task.id)).toEqual(task)
    })

    it('keeps nothing for a record it does not have', async () => {
      const id = record().id
      expect(await store().append!(id, [message(1)])).toBeUndefined()
      expect(await store().messages!(id, 0)).toEqual({ messages: [], length: 0 })
    })

    it('lives as long as its record: kept while a put moves the expiry on, gone with the record', async () => {
      const task = record({ expiresAt: Date.now() + 300 })
      await store().create(task)
      await store().append!(task.id, [message(1)])
      expect(await store().put({ ...task, version: 2, expiresAt: Date.now() + 700 })).toBe(true)
      await wait(400)
      expect(await store().messages!(task.id, 0)).toEqual({ messages: [message(1)], length: 1 })
      await wait(500)
      expect(await store().messages!(task.id, 0)).toEqual({ messages: [], length: 0 })
      expect(await store().append!(task.id, [message(2)])).toBeUndefined()
    })
  })
}

/** For stores that can list (TaskStore.list, used by the seed draft's tasks/list). */
export function describeTaskListing(name: string, store: () => TaskStore): void {
  describe(`TaskStore listing: ${name}`, () => {
    it("pages through one owner's live tasks in creation order (createdAt), and no one else's", async () => {
      const owner = `owner-${Math.random().toString(36).slice(2)}`
      const ids: string[] = []
      const base = Date.now()
      for (let i = 0; i < 5; i++) {
        const task = record({ owner, createdAt: base + i })
        ids.push(task.id)
        await store().create(task)
      }
      await store().create(record({ owner: `${owner}-other` }))
      // Two that expire, inside the first page: the pages must neither skip nor repeat a task around them.
      await store().create(record({ owner, createdAt: base + 0.5, expiresAt: Date.now() + 50 }))
      await store().create(record({ owner, createdAt: base + 0.6, expiresAt: Date.now() + 50 }))
      await wait(100)
      const list = store().list!.bind(store())
      const first = await list(owner, undefined, 2)
      const second = await list(owner, first.nextCursor, 2)
      const third = await list(owner, second.nextCursor, 2)
      expect([first, second, third].flatMap((p) => p.tasks.map((t) => t.id))).toEqual(ids)
      expect(third.nextCursor).toBeUndefined()
      expect((await list('nobody', undefined, 10)).tasks).toEqual([])
    })
  })
}

/**
 * For stores that count what they keep (RecordLimits, and a bound on bytes): each test takes a new, empty
 * store from `fresh`, with `maxBytes` as its bound.
 */
export function describeTaskLimits(name: string, fresh: (maxBytes: number) => TaskStore): void {
  const limits = (client: string | undefined, perClient = 2, total = 100) => ({ client, perClient, total })
  const refusal = (promise: Promise<unknown>) => promise.then(() => 'kept', (e: unknown) => (e instanceof StoreFull ? `${e.fault}: ${e.message}` : String(e)))
  describe(`TaskStore limits: ${name}`, () => {
    it("refuses a client's record past its share, keeping nothing of it; other clients, and the unknown, go on", async () => {
      const store = fresh(1e7)
      await store.create(record(), limits('address 192.0.2.1'))
      await store.create(record(), limits('address 192.0.2.1'))
      const third = record()
      expect(await refusal(store.create(third, limits('address 192.0.2.1')))).toBe('client: This client has 2 records kept, its most')
      expect(await store.get(third.id)).toBeUndefined()
      expect(await refusal(store.create(record(), limits('address 192.0.2.2')))).toBe('kept')
      expect(await refusal(store.create(record(), limits(undefined)))).toBe('kept')
    })

    it('counts a record until its expiry, moved on by puts, and not after', async () => {
      const store = fresh(1e7)
      const short = record({ expiresAt: Date.now() + 300 })
      await store.create(short, limits('alice', 2, 4))
      await store.create(record(), limits('alice', 2, 4))
      await store.create(record(), limits('carol', 2, 4))
      // Moved on: still counted past its first expiry, by its client's share and in all.
      expect(await store.put({ ...short, version: 2, expiresAt: Date.now() + 600 })).toBe(true)
      await wait(400)
      expect(await refusal(store.create(record(), limits('alice', 2, 4)))).toMatch(/^client: /)
      expect(await refusal(store.create(record(), limits('bob', 2, 4)))).toBe('kept')
      expect(await refusal(store.create(record(), limits('dave', 2, 4)))).toMatch(/^server: /)
      // Expired, it frees its place, though the others live on (the total far off: only the share is counted).
      await wait(300)
      expect(await refusal(store.create(record(), limits('alice', 2, 100)))).toBe('kept')
    })

    it('refuses anyone past the total', async () => {
      const store = fresh(1e7)
      for (const client of ['a', 'b', 'c']) await store.create(record(), limits(client, 2, 3))
      expect(await refusal(store.create(record(), limits('d', 2, 3)))).toMatch(/^server: This server keeps 3 records, its most$/)
      expect(await refusal(store.create(record(), limits(undefined, 2, 3)))).toMatch(/^server: /)
    })

    it('refuses a record past its bytes, counting puts that grow records and logs, and gives expired bytes back', async () => {
      const big = (n: number, patch: Partial<TaskRecord> = {}) => record({ work: { tool: 'slow', arguments: { text: 'x'.repeat(n) } }, ...patch })
      const store = fresh(5000)
      const first = big(1000, { expiresAt: Date.now() + 400 })
      const second = big(1000)
      await store.create(first)
      await store.create(second)
      expect(await refusal(store.create(big(3000)))).toMatch(/^server: This server keeps 5000 (characters|bytes) of records/)
      // A put that grows a record counts (some 4,150 kept now), and so does a log (some 5,050).
      expect(await store.put({ ...first, version: 2, result: { text: 'y'.repeat(1500) } })).toBe(true)
      if (store.append) {
        await store.append(second.id, [{ text: 'z'.repeat(900) }])
        expect(await refusal(store.create(record()))).toMatch(/^server: /)
        // A put after an append keeps counting the log.
        expect(await store.put({ ...second, version: 2, statusMessage: 'on' })).toBe(true)
      } else expect(await store.put({ ...second, version: 2, result: { text: 'z'.repeat(900) } })).toBe(true)
      expect(await refusal(store.create(record()))).toMatch(/^server: /)
      await wait(500)
      expect(await refusal(store.create(big(2000)))).toBe('kept')
    })
  })
}
