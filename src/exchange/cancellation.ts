/**
 * A request's abort signal, made only when something asks for it. Most handlers answer at once and never
 * look; an AbortSignal (and, on Node, the request's own) costs more to make than such a handler takes.
 */
export class Cancellation {
  #controller: AbortController | undefined
  #reason: unknown
  #aborted = false
  /** One listener as it is, several in an array. */
  #listeners: (() => void) | (() => void)[] | undefined
  readonly #parent: { readonly signal: AbortSignal } | undefined

  /** `parent`: what holds the transport's signal (the HTTP request), followed once this one is made. */
  constructor(parent?: { readonly signal: AbortSignal }) {
    this.#parent = parent
  }

  get aborted(): boolean {
    return this.#aborted
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#reason)
      else if (this.#parent) {
        const parent = this.#parent.signal
        if (parent.aborted) this.abort(parent.reason)
        else parent.addEventListener('abort', () => this.abort(parent.reason), { once: true })
      }
    }
    return this.#controller.signal
  }

  /**
   * Calls `listener` once on abort, at once if aborted already. Unlike the signal's 'abort' event it needs
   * no AbortSignal: a listen stream waits on this for its whole life, and a signal with its listener costs
   * some 700 bytes a stream. A lone listener is kept without an array (56 bytes more for each stream).
   */
  onAbort(listener: () => void): void {
    if (this.#aborted) return listener()
    const listeners = this.#listeners
    if (listeners === undefined) this.#listeners = listener
    else if (Array.isArray(listeners)) listeners.push(listener)
    // Made to size: `[]` grows to 17 slots on its first push.
    else this.#listeners = [listeners, listener]
  }

  offAbort(listener: () => void): void {
    const listeners = this.#listeners
    if (listeners === listener) this.#listeners = undefined
    else if (Array.isArray(listeners)) {
      const at = listeners.indexOf(listener)
      if (at >= 0) listeners.splice(at, 1)
    }
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
    const listeners = this.#listeners
    this.#listeners = undefined
    if (Array.isArray(listeners)) for (const listener of listeners) listener()
    else listeners?.()
  }
}
