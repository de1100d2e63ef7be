/**
 * A value read once and shared by every caller: kept once read; a read that fails is made again by the next
 * caller; a caller that joins a read under way waits for it at most `patienceMs`, then starts its own. That
 * bound matters on Workers, where a read started by a request that is then cancelled never settles: whoever
 * awaited it, every later request of the isolate included, would wait forever. The first value read wins, so
 * callers that read again agree with the rest.
 */
export function sharedRead<T>(read: () => Promise<T>, patienceMs = 2_000): () => Promise<T> {
  let kept: { value: T } | undefined
  let pending: Promise<T> | undefined
  const start = (): Promise<T> => {
    const attempt = new Promise<T>((resolve) => resolve(read())).then((value) => (kept ??= { value }).value)
    attempt.catch(() => pending === attempt && (pending = undefined))
    return (pending = attempt)
  }
  return () => {
    if (kept) return Promise.resolve(kept.value)
    const joined = pending
    if (!joined) return start()
    let timer: ReturnType<typeof setTimeout> | undefined
    const impatient = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(pending === joined || !pending ? start() : pending), patienceMs)
    })
    return Promise.race([joined, impatient]).finally(() => timer !== undefined && clearTimeout(timer))
  }
}
