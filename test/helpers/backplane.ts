/**
 * A backplane whose subscriptions complete only when the test says so, like Redis while its SUBSCRIBE is
 * in flight: events published meanwhile already reach the listener. It opens the windows a listen stream's
 * setup must handle (events before the acknowledgement, a client that leaves before the subscription is
 * live), which the in-memory backplane closes at once.
 */
import { memoryBackplane, type Backplane } from '../../src/index.js'
import { deferred, type Deferred } from './async.js'

export interface GatedBackplane extends Backplane {
  /** Resolves when a subscribe call is waiting for `release`. */
  subscribing(): Promise<void>
  /** Completes the oldest waiting subscribe call. */
  release(): void
  /** Subscriptions made and not closed, whether or not their subscribe call has completed. */
  readonly open: number
  /** Events handed to listeners so far. */
  readonly delivered: number
}

export function gatedBackplane(): GatedBackplane {
  const inner = memoryBackplane()
  const gates: Deferred[] = []
  let waiting = deferred()
  let delivered = 0
  return {
    publish: (event) => inner.publish(event),
    async subscribe(topics, listener) {
      const subscription = await inner.subscribe(topics, (event) => {
        delivered++
        listener(event)
      })
      const gate = deferred()
      gates.push(gate)
      waiting.resolve()
      await gate.promise
      return subscription
    },
    subscribing: () => waiting.promise,
    release() {
      const gate = gates.shift()
      if (!gate) throw new Error('no subscribe call is waiting')
      gate.resolve()
      waiting = deferred()
      if (gates.length > 0) waiting.resolve()
    },
    get open() {
      return inner.size
    },
    get delivered() {
      return delivered
    },
  }
}
