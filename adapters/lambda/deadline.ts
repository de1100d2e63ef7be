// An invocation's time: Lambda ends it at the function's timeout whatever it is doing, and never tells a
// function that its client left, so what must end ends by the clock.

/** One invocation's clock, from the function's remaining time. */
export interface Clock {
  /** When streams end gracefully (ms since the epoch). */
  readonly deadline: number | undefined
  /** The request's abort signal. */
  readonly signal: AbortSignal
  /** Aborted when the invocation must end, answered or not. */
  readonly stop: AbortSignal
  clear(): void
}

export function startClock(context: { getRemainingTimeInMillis?(): number }, marginMs: number): Clock {
  const request = new AbortController()
  const stop = new AbortController()
  const remaining = context.getRemainingTimeInMillis?.()
  if (typeof remaining !== 'number' || !Number.isFinite(remaining)) {
    return { deadline: undefined, signal: request.signal, stop: stop.signal, clear() {} }
  }
  const reason = new Error('The function reached its deadline')
  const abort = setTimeout(() => request.abort(reason), Math.max(0, remaining - marginMs / 2))
  const end = setTimeout(() => stop.abort(reason), Math.max(0, remaining - marginMs / 4))
  return {
    deadline: Date.now() + remaining - marginMs,
    signal: request.signal,
    stop: stop.signal,
    clear() {
      clearTimeout(abort)
      clearTimeout(end)
    },
  }
}

/** waitUntil for one invocation: the work runs on after the response, and the invocation waits for it (up to `stop`). */
export function background(stop: AbortSignal) {
  const pending: Promise<unknown>[] = []
  const stopped = new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve(), { once: true })))
  return {
    waitUntil: (promise: Promise<unknown>) => void pending.push(promise.catch(() => {})),
    async settle() {
      while (pending.length && !stop.aborted) await Promise.race([Promise.all(pending.splice(0)), stopped])
    },
  }
}
