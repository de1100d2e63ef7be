/** An open listen stream as its runtime sees it. */
export interface OpenStream {
  /** When its lifetime is over (ms since the epoch; Infinity for never). Set before it is added. */
  readonly expires: number
  /** Ends it gracefully; it deletes itself from the streams. */
  end(): void
}

/**
 * A runtime's open listen streams, and one timer that ends each when its lifetime is over. The streams of a
 * runtime live equally long (listen.maxLifetimeMs), so they expire in the order they opened and the timer
 * waits for the oldest only: one timer rather than one per stream, which costs some 130 bytes, for tens of
 * thousands of streams. A stream that must end before one opened earlier (a platform's deadline came
 * sooner) gets a timer of its own, and so does every stream where a timer belongs to the request that set it
 * (`ownTimers`, Workers): a shared one would die with the first stream's request, and may not end another's.
 */
export class OpenStreams {
  // Streams that expire, in the order they expire.
  readonly #ordered = new Set<OpenStream>()
  // The others: those that never expire, and those with a timer of their own (undefined for none).
  readonly #others = new Map<OpenStream, ReturnType<typeof setTimeout> | undefined>()
  #latest = -Infinity
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly ownTimers = false) {}

  get size(): number {
    return this.#ordered.size + this.#others.size
  }

  add(stream: OpenStream): void {
    const { expires } = stream
    if (expires === Infinity) return void this.#others.set(stream, undefined)
    if (this.ownTimers || expires < this.#latest) return void this.#others.set(stream, setTimeout(() => stream.end(), expires - Date.now()))
    this.#latest = expires
    this.#ordered.add(stream)
    if (this.#timer === undefined) this.#arm(expires)
  }

  delete(stream: OpenStream): void {
    if (this.#others.has(stream)) {
      const timer = this.#others.get(stream)
      if (timer !== undefined) clearTimeout(timer)
      this.#others.delete(stream)
    } else if (this.#ordered.delete(stream) && this.#ordered.size === 0) {
      // Nothing left to wait for: no timer keeps the process up, and the order starts afresh.
      if (this.#timer !== undefined) clearTimeout(this.#timer)
      this.#timer = undefined
      this.#latest = -Infinity
    }
  }

  /** Ends every stream gracefully (shutdown). */
  endAll(): void {
    for (const stream of [...this.#ordered, ...this.#others.keys()]) stream.end()
  }

  #arm(at: number): void {
    this.#timer = setTimeout(() => this.#sweep(), Math.max(0, at - Date.now()))
  }

  #sweep(): void {
    this.#timer = undefined
    const now = Date.now()
    for (const stream of this.#ordered) {
      if (stream.expires > now) return this.#arm(stream.expires)
      stream.end()
    }
  }
}
