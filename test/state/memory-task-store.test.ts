import { describe, expect, it } from 'vitest'
import { memoryTaskStore } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { describeTaskLimits, describeTaskListing, describeTaskLog, describeTaskStore, record } from '../helpers/task-store.js'

const store = memoryTaskStore({ sweepMs: 50 })
describeTaskStore('memory', () => store)
describeTaskListing('memory', () => store)
describeTaskLog('memory', () => store)
describeTaskLimits('memory', (maxBytes) => memoryTaskStore({ maxBytes }))

describe('memory task store: what it holds', () => {
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
})
