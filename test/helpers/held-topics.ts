/**
 * A real backplane, as its subscribers use it: the topics their open subscriptions name, and every event it
 * hands a listener on a topic none of that listener's open subscriptions names (one it holds after they
 * closed: a leak of the backplane's own). Each listener is wrapped once, so that the backplane sees the
 * same function however many subscriptions it makes, as it would without this.
 */
import { isResync, type Backplane, type Listener, type Subscription } from '../../src/index.js'

export interface HeldTopics extends Backplane {
  /** Open subscriptions per topic. */
  readonly open: ReadonlyMap<string, number>
  /** Every topic ever subscribed. */
  readonly seen: ReadonlySet<string>
  /** Topics delivered to a listener that no longer subscribes to them. */
  readonly stray: readonly string[]
}

export function heldTopics(inner: Backplane): HeldTopics {
  const open = new Map<string, number>()
  const seen = new Set<string>()
  const stray: string[] = []
  const held = new Map<Listener, Map<string, number>>()
  const wrapped = new WeakMap<Listener, Listener>()
  const count = (map: Map<string, number>, topic: string, by: number) => {
    const n = (map.get(topic) ?? 0) + by
    if (n > 0) map.set(topic, n)
    else map.delete(topic)
  }
  const wrap = (listener: Listener): Listener => {
    let w = wrapped.get(listener)
    if (!w) {
      w = (event) => {
        if (!isResync(event) && !held.get(listener)?.has(event.topic)) stray.push(event.topic)
        listener(event)
      }
      wrapped.set(listener, w)
    }
    return w
  }
  return {
    kind: inner.kind,
    open,
    seen,
    stray,
    publish: (event) => inner.publish(event),
    async subscribe(topics, listener) {
      const opened = await inner.subscribe(topics, wrap(listener))
      const mine = held.get(listener) ?? new Map<string, number>()
      held.set(listener, mine)
      const distinct = [...new Set(topics)]
      for (const t of distinct) {
        seen.add(t)
        count(open, t, 1)
        count(mine, t, 1)
      }
      let closed = false
      return {
        async close() {
          if (closed) return
          closed = true
          await opened.close()
          for (const t of distinct) {
            count(open, t, -1)
            count(mine, t, -1)
          }
        },
      } satisfies Subscription
    },
  }
}
