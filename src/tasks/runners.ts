import type { Cancellation } from '../exchange/cancellation.js'

/**
 * The runners of one service in this process, by task id (TaskService.running), and when the last of them
 * has ended: a shutdown lets them finish within its grace period rather than fail them at once (serve(),
 * adapters/node/serve.ts). A runner deletes itself once its outcome is stored (runTask, ./runner.ts).
 */
export class Runners extends Map<string, Cancellation> {
  #waiting: (() => void)[] = []

  override delete(id: string): boolean {
    const had = super.delete(id)
    if (this.size === 0) for (const resolve of this.#waiting.splice(0)) resolve()
    return had
  }

  /** Resolves once none runs here: now, or when the last of those running (started before then or since) ends. */
  idle(): Promise<void> {
    return this.size === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiting.push(resolve))
  }
}
