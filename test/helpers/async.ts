/** Waiting on events instead of on the clock: tests fail when behaviour breaks, not when the machine is slow. */

/** Polls `condition` until it holds; fails after `ms` (a bound for a broken run, not a speed requirement). */
export async function until(condition: () => boolean, ms = 5000, what = 'a condition'): Promise<void> {
  for (const end = Date.now() + ms; !condition(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
  }
}

export interface Deferred<T = void> {
  readonly promise: Promise<T>
  resolve(value: T): void
  readonly settled: boolean
}

/** A promise settled from outside: a gate a handler waits at, or a signal that something happened. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let settled = false
  const promise = new Promise<T>((r) => (resolve = r))
  return {
    promise,
    resolve: (value) => {
      settled = true
      resolve(value)
    },
    get settled() {
      return settled
    },
  }
}

/**
 * Lets every task already queued in this process run to its end: timers due now, I/O callbacks, stream
 * pumping. What an in-process server would have written by now has then been written.
 */
export async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0))
}
