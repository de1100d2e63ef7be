/** The concurrency kit must hold what it says it holds, or the interleavings the tests stage never happen. */
import { describe, expect, it } from 'vitest'
import { memoryTaskStore } from '../../src/index.js'
import { turns } from './async.js'
import { gate, heldStore, holders } from './concurrency.js'
import { record } from './task-store.js'

describe('gate', () => {
  it('holds whoever waits until opened, and lets everyone through after', async () => {
    const g = gate()
    let through = 0
    void g.passed.then(() => through++)
    await turns(1)
    expect([g.isOpen, through]).toEqual([false, 0])
    g.open()
    await g.passed
    expect([g.isOpen, through]).toEqual([true, 1])
  })
})

describe('heldStore', () => {
  it('keeps the chosen writes from the store until released, then lets them on in the order they came', async () => {
    const store = heldStore(memoryTaskStore())
    const task = record()
    await store.create(task)
    const held = store.hold('put', (t) => t.status === 'cancelled')
    const late = store.put({ ...task, version: 2, status: 'cancelled' })
    const later = store.put({ ...task, version: 3, status: 'cancelled', statusMessage: 'second' })
    expect(await held.reached).toMatchObject({ version: 2 })
    // Not picked: straight through, while the others wait.
    expect(await store.put({ ...task, version: 2, status: 'completed' })).toBe(true)
    expect(held.held.map((t) => t.version)).toEqual([2, 3])
    held.release()
    expect([await late, await later]).toEqual([false, true])
    expect(store.writes.map((t) => [t.version, t.status])).toEqual([[1, 'working'], [2, 'completed'], [3, 'cancelled']])
  })

  it('lets held calls on once `until` settles, and rejects dropped ones without their reaching the store, the hold over', async () => {
    const store = heldStore(memoryTaskStore())
    const task = record()
    const open = gate()
    const creating = store.hold('create', undefined, open.passed)
    const created = store.create(task)
    await creating.reached
    open.open()
    await created
    const writes = store.hold('put')
    const lost = store.put({ ...task, version: 2, status: 'cancelled' })
    await writes.reached
    writes.drop()
    await expect(lost).rejects.toThrow('put dropped by the test')
    expect(await store.get(task.id)).toEqual(task)
    expect(await store.put({ ...task, version: 2, status: 'completed' })).toBe(true)
    expect(store.writes.map((t) => t.status)).toEqual(['working', 'completed'])
  })

  it('names the lease holders of a task in turn, a run of one holder once', async () => {
    const store = heldStore(memoryTaskStore())
    const task = record({ lease: { holder: 'a', until: Date.now() + 1000 } })
    await store.create(task)
    await store.put({ ...task, version: 2 })
    await store.put({ ...task, version: 3, lease: undefined, status: 'input_required' })
    await store.put({ ...task, version: 4, lease: { holder: 'b', until: Date.now() + 1000 } })
    await store.put({ ...task, version: 5, lease: { holder: 'a', until: Date.now() + 1000 } })
    expect(holders(store, task.id)).toEqual(['a', 'b', 'a'])
  })
})
