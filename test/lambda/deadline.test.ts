/**
 * An invocation's clock (adapters/lambda/deadline.ts) under fake timers: when streams end, when the request's
 * signal fires and when the invocation stops, from the remaining time and the margin, as LambdaOptions says.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { background, startClock } from '../../adapters/lambda/deadline.js'

beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }))
afterEach(() => void vi.useRealTimers())

describe('startClock', () => {
  it('ends streams a margin before the timeout, aborts the request at half of it, and stops at a quarter', () => {
    const clock = startClock({ getRemainingTimeInMillis: () => 1_000 }, 400)
    expect(clock.deadline).toBe(1_000_000 + 600)
    vi.advanceTimersByTime(799)
    expect([clock.signal.aborted, clock.stop.aborted]).toEqual([false, false])
    vi.advanceTimersByTime(1)
    expect([clock.signal.aborted, clock.stop.aborted]).toEqual([true, false])
    expect((clock.signal.reason as Error).message).toBe('The function reached its deadline')
    vi.advanceTimersByTime(99)
    expect(clock.stop.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(clock.stop.aborted).toBe(true)
    expect(clock.stop.reason).toBe(clock.signal.reason)
  })

  it('fires nothing once cleared, and at once when the time is already short of the margin', () => {
    const cleared = startClock({ getRemainingTimeInMillis: () => 1_000 }, 400)
    cleared.clear()
    vi.advanceTimersByTime(10_000)
    expect([cleared.signal.aborted, cleared.stop.aborted]).toEqual([false, false])
    const late = startClock({ getRemainingTimeInMillis: () => 50 }, 1_000)
    expect(late.signal.aborted).toBe(false)
    vi.advanceTimersByTime(0)
    expect([late.signal.aborted, late.stop.aborted]).toEqual([true, true])
  })

  it('has no deadline where the context tells no remaining time', () => {
    for (const context of [{}, { getRemainingTimeInMillis: () => Number.NaN }, { getRemainingTimeInMillis: () => Infinity }]) {
      const clock = startClock(context, 400)
      expect(clock.deadline).toBeUndefined()
      vi.advanceTimersByTime(1e9)
      expect([clock.signal.aborted, clock.stop.aborted]).toEqual([false, false])
    }
  })
})

describe('background', () => {
  it('settles once every piece of work has, work added meanwhile included, and failures count as done', async () => {
    const stop = new AbortController()
    const work = background(stop.signal)
    let finishFirst!: () => void
    work.waitUntil(new Promise<void>((resolve) => (finishFirst = resolve)).then(() => work.waitUntil(Promise.reject(new Error('ignored')))))
    let settled = false
    const settling = work.settle().then(() => void (settled = true))
    await vi.advanceTimersByTimeAsync(0)
    expect(settled).toBe(false)
    finishFirst()
    await settling
    expect(settled).toBe(true)
  })

  it('stops waiting when the invocation must stop, and does not wait at all once it has', async () => {
    const stop = new AbortController()
    const work = background(stop.signal)
    work.waitUntil(new Promise(() => {}))
    const settling = work.settle()
    stop.abort()
    await settling
    await background(stop.signal).settle()
    const after = background(stop.signal)
    after.waitUntil(new Promise(() => {}))
    await after.settle()
  })
})
