import type { TaskStore } from '../../state/tasks.js'

/** How long an instance goes by the epoch it read before asking the store again. */
const REREAD_MS = 1000

/**
 * The sessions' epoch, as the store tells it (TaskStore.epoch): since when it has kept every record. A
 * session's end (DELETE) is a record in the store; a store that may have lost records (a memory store's
 * process restarted, a Redis restarted without persistence or flushed) starts a new epoch, and ids issued
 * before it are refused: an end the store forgot cannot bring its session back. What the memory store can
 * promise, then: a restart ends every session (404, and 2025 clients initialize again). A store without
 * epochs keeps records durably (a Durable Object each).
 */
export class SessionEpoch {
  #read: Promise<number | undefined> | undefined
  #readAt = -Infinity

  constructor(private readonly store: TaskStore) {}

  /** The store's epoch, read again after a second: an instance may take ids issued before a new one for that long. */
  current(): Promise<number | undefined> {
    const { store } = this
    if (!store.epoch) return Promise.resolve(undefined)
    const now = performance.now()
    if (this.#read && now - this.#readAt < REREAD_MS) return this.#read
    this.#readAt = now
    const read = store.epoch()
    // A failed read is not kept: the next request asks the store again.
    read.catch(() => this.#read === read && (this.#read = undefined))
    return (this.#read = read)
  }
}
