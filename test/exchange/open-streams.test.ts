/**
 * The runtime's open listen streams (src/exchange/open-streams.ts): each ended when its lifetime is over,
 * by one timer for the streams that expire in the order they opened, and a timer of its own for one whose
 * deadline comes before an earlier stream's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { OpenStreams } from '../../src/exchange/open-streams.js'

function streamsWithLog(ownTimers?: boolean) {
  const streams = new OpenStreams(ownTimers)
  const ended: string[] = []
  const open = (name: string, lifetimeMs: number) => {
    const stream = {
      expires: Date.now() + lifetimeMs,
      end: () => {
        ended.push(name)
        streams.delete(stream)
      },
    }
    streams.add(stream)
    return stream
  }
  return { streams, ended, open }
}

describe('OpenStreams', () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  it('ends streams in the order they expire with one timer, and none once they are gone', () => {
    const { streams, ended, open } = streamsWithLog()
    open('a', 100)
    vi.advanceTimersByTime(10)
    open('b', 100)
    open('c', 100)
    expect(streams.size).toBe(3)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(89)
    expect(ended).toEqual([])
    vi.advanceTimersByTime(1)
    expect(ended).toEqual(['a'])
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(10)
    expect(ended).toEqual(['a', 'b', 'c'])
    expect(streams.size).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a stream that leaves early is not ended, and the last to leave takes the timer with it', () => {
    const { streams, ended, open } = streamsWithLog()
    const a = open('a', 100)
    const b = open('b', 200)
    streams.delete(a)
    vi.advanceTimersByTime(150)
    expect(ended).toEqual([])
    streams.delete(b)
    expect(vi.getTimerCount()).toBe(0)
    // The order starts afresh: streams due before the last one that left are in order again, under one timer.
    open('c', 40)
    open('d', 45)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(45)
    expect(ended).toEqual(['c', 'd'])
  })

  it('a stream that never expires leaves the order to the others', () => {
    const { ended, open } = streamsWithLog()
    open('never', Infinity)
    expect(vi.getTimerCount()).toBe(0)
    open('a', 100)
    open('b', 100)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(100)
    expect(ended).toEqual(['a', 'b'])
  })

  it('a stream due before one opened earlier gets a timer of its own; one that never expires gets none', () => {
    const { streams, ended, open } = streamsWithLog()
    open('long', 1000)
    const short = open('short', 100)
    open('never', Infinity)
    expect(vi.getTimerCount()).toBe(2)
    vi.advanceTimersByTime(100)
    expect(ended).toEqual(['short'])
    expect(vi.getTimerCount()).toBe(1)
    streams.delete(short)
    const cut = open('cut', 50)
    expect(vi.getTimerCount()).toBe(2)
    streams.delete(cut)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(900)
    expect(ended).toEqual(['short', 'long'])
    expect(streams.size).toBe(1)
  })

  it('with timers of their own (Workers: a timer belongs to its request), each stream keeps one', () => {
    const { streams, ended, open } = streamsWithLog(true)
    open('a', 100)
    const b = open('b', 200)
    expect(vi.getTimerCount()).toBe(2)
    vi.advanceTimersByTime(100)
    expect(ended).toEqual(['a'])
    streams.delete(b)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('endAll ends every stream, those in order and the others', () => {
    const { streams, ended, open } = streamsWithLog()
    open('a', 100)
    open('b', 50)
    open('c', Infinity)
    streams.endAll()
    expect(ended.sort()).toEqual(['a', 'b', 'c'])
    expect(streams.size).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a stream already past its time is ended at once', () => {
    const { ended, open } = streamsWithLog()
    open('late', -5)
    vi.advanceTimersByTime(0)
    expect(ended).toEqual(['late'])
  })
})
