import { INTERNAL_ERROR } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'

/** Time limits of running requests (handlerTimeoutMs). */
export interface Deadlines {
  /** `running`'s outcome, or -32603 once it has run `ms`: then `expire` is called and the outcome is not waited for. */
  limit<T>(running: Promise<T>, expire: () => void): Promise<T>
}

/**
 * One timer checks every running request, a quarter of the limit apart (at most 1 s), and stops when none
 * runs: a timer per request cost about a tenth of tools/call throughput under concurrent load (one at a time,
 * each request still starts and stops it). A request overrunning is stopped at most that quarter late.
 */
export function deadlines(ms: number): Deadlines {
  if (!Number.isFinite(ms)) return { limit: (running) => running }
  const pending = new Set<{ readonly until: number; expire(): void }>()
  let sweeper: ReturnType<typeof setInterval> | undefined
  // Gone with the last running request: no timer outlives the work (nor keeps a process up).
  const done = (entry: { readonly until: number; expire(): void }) => {
    pending.delete(entry)
    if (pending.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper)
      sweeper = undefined
    }
  }
  const sweep = () => {
    const now = Date.now()
    for (const entry of pending) {
      if (entry.until > now) continue
      done(entry)
      entry.expire()
    }
  }
  const every = Math.max(10, Math.min(1000, ms / 4))
  return {
    limit: (running, expire) => new Promise((resolve, reject) => {
      const entry = {
        until: Date.now() + ms,
        expire() {
          expire()
          reject(new McpError(INTERNAL_ERROR, `The request ran past the server's time limit (${ms} ms) and was stopped`))
        },
      }
      pending.add(entry)
      sweeper ??= setInterval(sweep, every)
      running.then(
        (value) => (done(entry), resolve(value)),
        (error: unknown) => (done(entry), reject(error)),
      )
    }),
  }
}
