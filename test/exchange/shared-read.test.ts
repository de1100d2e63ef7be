/**
 * sharedRead: one read for every caller, and no caller held forever by a read that never settles (on Workers,
 * one started by a request that was then cancelled).
 */
import { describe, expect, it } from 'vitest'
import { sharedRead } from '../../src/core.js'
import { stateCodec, type StatePayload } from '../../src/exchange/request-state.js'

const never = () => new Promise<never>(() => {})

describe('sharedRead', () => {
  it('reads once for concurrent and later callers', async () => {
    let reads = 0
    const get = sharedRead(async () => ++reads)
    expect(await Promise.all([get(), get(), get()])).toEqual([1, 1, 1])
    expect(await get()).toBe(1)
    expect(reads).toBe(1)
  })

  it('reads again after a failure', async () => {
    let reads = 0
    const get = sharedRead(async () => {
      if (++reads === 1) throw new Error('down')
      return 'up'
    })
    await expect(get()).rejects.toThrow('down')
    expect(await get()).toBe('up')
  })

  it('lets a caller joining a read that never settles read for itself after patienceMs, and keeps that', async () => {
    let reads = 0
    const get = sharedRead(() => (++reads === 1 ? never() : Promise.resolve(`read ${reads}`)), 50)
    void get() // its request was cancelled: this never settles
    expect(await Promise.all([get(), get()])).toEqual(['read 2', 'read 2'])
    expect(await get()).toBe('read 2')
    expect(reads).toBe(2)
  })

  it('gives every caller the first value read, even one that read again', async () => {
    let release!: () => void
    const slow = new Promise<void>((r) => (release = r))
    let reads = 0
    const get = sharedRead(async () => {
      const n = ++reads
      if (n === 1) await slow
      return n
    }, 20)
    const first = get()
    const second = get() // gives up on the first read after 20 ms, reads 2, which settles first and wins
    expect(await second).toBe(2)
    release()
    expect(await first).toBe(2) // its own read settled second: it gets the value already kept, as everyone does
    expect(await get()).toBe(2)
  })
})

it('a requestState codec whose secret source hung once still seals and opens', async () => {
  let calls = 0
  const codec = stateCodec(() => (++calls === 1 ? never() : Promise.resolve('a-secret-of-at-least-32-bytes-0123456789')))
  void codec.seal({ n: 's', m: 'm', d: 'd', x: Date.now() + 60_000, a: {}, s: {} })
  const payload: StatePayload = { n: 's', m: 'tools/call', d: 'd', x: Date.now() + 60_000, a: {}, s: {} }
  expect(await codec.open(await codec.seal(payload))).toEqual(payload)
}, 10_000)
