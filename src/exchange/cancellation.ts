/**
 * A request's abort signal, made only when something asks for it. Most handlers answer at once and never
 * look; an AbortSignal (and, on Node, the request's own) costs more to make than such a handler takes.
 */
export class Cancellation {
  #controller: AbortController | undefined
  #reason: unknown
  #aborted = false
  readonly #parent: (() => AbortSignal) | undefined

  /** `parent`: the transport's signal (the HTTP request's), followed once this one is made. */
  constructor(parent?: () => AbortSignal) {
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
        const parent = this.#parent()
        if (parent.aborted) this.abort(parent.reason)
        else parent.addEventListener('abort', () => this.abort(parent.reason), { once: true })
      }
    }
    return this.#controller.signal
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
  }
}
