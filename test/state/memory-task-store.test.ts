import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryTaskStore, StoreFull } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { describeTaskLimits, describeTaskListing, describeTaskLog, describeTaskStore, record } from '../helpers/task-store.js'

const store = memoryTaskStore({ sweepMs: 50 })
describeTaskStore('memory', () => store)
describeTaskListing('memory', () => store)
describeTaskLog('memory', () => store)
describeTaskLimits('memory', (maxBytes) => memoryTaskStore({ maxBytes }))

describe('memory task store: what it holds', () => {
  afterEach(() => vi.useRealTimers())

  it('sweeps out expired tasks and keeps live ones', async () => {
    const own = memoryTaskStore({ sweepMs: 20 })
    const expiring = record({ expiresAt: Date.now() + 30 })
    const live = record()
    await own.create(expiring)
    await own.create(live)
    expect(own.size).toBe(2)
    await until(() => own.size === 1, 2000, 'the sweep')
    expect(await own.get(live.id)).toEqual(live)
    await own.close!()
  })

  it('says which id it refuses to create twice', async () => {
    const own = memoryTaskStore()
    const task = record()
    await own.create(task)
    await expect(own.create(task)).rejects.toThrow(`task ${task.id} exists`)
    await own.close!()
  })

  it('forgets every task on close', async () => {
    const own = memoryTaskStore()
    const task = record()
    await own.create(task)
    await own.close!()
    expect(own.size).toBe(0)
    expect(await own.get(task.id)).toBeUndefined()
    expect((await own.list!(task.owner, undefined, 10)).tasks).toEqual([])
  })

  it('counts no expired record against its total, swept or not', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const own = memoryTaskStore() // swept once a minute: not during this test
    const limits = { total: 2, perClient: 2 }
    await own.create(record({ expiresAt: Date.now() + 500 }), { ...limits, client: 'a' })
    await own.create(record({ expiresAt: Date.now() + 500 }), { ...limits, client: 'b' })
    await expect(own.create(record(), { ...limits, client: 'c' })).rejects.toThrow(StoreFull)
    vi.setSystemTime(Date.now() + 500)
    await own.create(record(), { ...limits, client: 'c' })
    expect(own.size).toBe(1)
    await own.close!()
  })

  it('takes a record that fills maxBytes exactly, and none past it', async () => {
    const task = record()
    const own = memoryTaskStore({ maxBytes: JSON.stringify(task).length })
    await own.create(task)
    expect(own.bytes).toBe(JSON.stringify(task).length)
    await expect(own.create(record())).rejects.toThrow(StoreFull)
    await own.close!()
  })

  it('a record made again under an expired one\'s id starts with no log', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const own = memoryTaskStore()
    const old = record({ expiresAt: Date.now() + 500 })
    await own.create(old)
    expect(await own.append!(old.id, [{ n: 1 }, { n: 2 }])).toBe(2)
    vi.setSystemTime(Date.now() + 500)
    const again = record({ id: old.id })
    await own.create(again)
    expect(await own.messages!(old.id, 0)).toEqual({ messages: [], length: 0 })
    expect(own.bytes).toBe(JSON.stringify(again).length)
    await own.close!()
  })

  it('runs one sweep timer while it holds records, and none once they are gone or it is closed', async () => {
    vi.useFakeTimers()
    const own = memoryTaskStore({ sweepMs: 1000 })
    const before = vi.getTimerCount()
    await own.create(record({ expiresAt: Date.now() + 500 }))
    await own.create(record({ expiresAt: Date.now() + 500 }))
    expect(vi.getTimerCount()).toBe(before + 1)
    vi.advanceTimersByTime(1000)
    expect([own.size, vi.getTimerCount()]).toEqual([0, before])
    await own.create(record())
    expect(vi.getTimerCount()).toBe(before + 1)
    await own.close!()
    expect(vi.getTimerCount()).toBe(before)
  })
})
