import { notification } from '../../protocol/jsonrpc.js'
import { admit, release } from '../../exchange/listen.js'
import type { OpenStream } from '../../exchange/open-streams.js'
import type { Runtime } from '../../exchange/types.js'
import type { Cancellation } from '../../exchange/cancellation.js'
import { isResync, listChanged, resourceUpdated, type ChangeEvent, type Resync, type Subscription } from '../../state/backplane.js'
import type { SseStream } from '../sse.js'
import { recordId, stateOf, type SessionState } from './records.js'
import { sessionTopic, type Sessions } from './session.js'

const LISTS = ['tools', 'prompts', 'resources'] as const
const RESOURCE = resourceUpdated('').topic

/**
 * A 2025 session's GET stream: the list changes the server advertises and `notifications/resources/updated`
 * for the URIs the session subscribed to, whichever instance made the change. The subscriptions change
 * while it is open: `resources/subscribe` on any instance publishes on the session's topic, and the
 * stream starts following the URI; DELETE anywhere ends the session and closes it. It counts among the
 * client's listen streams and lives as long as one.
 */
export class SessionStream implements OpenStream {
  readonly expires: number
  readonly #uris: Set<string>
  /** Topics subscribed so far: a URI unsubscribed keeps its topic, and is filtered out at delivery. */
  readonly #topics = new Set<string>()
  readonly #subscriptions: Promise<Subscription | undefined>[] = []
  #done = false
  /** Where it writes: set once it is admitted and its response begins, before any delivery can come. */
  sse: SseStream | undefined
  readonly leave = () => this.end()
  readonly deliver = (event: ChangeEvent | Resync) => this.#deliver(event)

  constructor(
    private readonly runtime: Runtime,
    private readonly sessions: Sessions,
    private readonly key: string,
    state: SessionState,
    private readonly cancel: Cancellation,
    private readonly client: string | undefined,
    deadline: number | undefined,
  ) {
    this.#uris = new Set(state.subscriptions)
    this.expires = Math.min(Date.now() + runtime.maxListenMs, deadline ?? Infinity)
  }

  /** Counts it (Overloaded past the limits, thrown before anything is sent), then subscribes. */
  start(): void {
    admit(this.runtime, this.client)
    this.runtime.streams.add(this)
    this.cancel.onAbort(this.leave)
    const capabilities = this.runtime.capabilities()
    const lists = LISTS.filter((list) => capabilities[list]?.listChanged).map((list) => listChanged(list).topic)
    this.#follow([sessionTopic(this.key), ...lists, ...[...this.#uris].map((uri) => resourceUpdated(uri).topic)])
    // What changed between the state read for this request and the subscription to the session's topic.
    void this.#subscriptions[0]!.then(() => this.sessions.store.get(recordId(this.key))).then((record) => {
      const state = stateOf(record)
      if (state.ended) return this.end()
      for (const uri of state.subscriptions) this.#subscribe(uri, true)
    }).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream' }))
  }

  end(): void {
    if (this.#done) return
    this.#done = true
    this.sse?.close()
    release(this.runtime, this.client)
    this.runtime.streams.delete(this)
    this.cancel.offAbort(this.leave)
    for (const opened of this.#subscriptions) {
      void opened.then((s) => s?.close()).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream close' }))
    }
  }

  #follow(topics: readonly string[]): void {
    const fresh = topics.filter((t) => !this.#topics.has(t))
    if (fresh.length === 0) return
    for (const topic of fresh) this.#topics.add(topic)
    this.#subscriptions.push(this.runtime.backplane.subscribe(fresh, this.deliver).catch((e: unknown) => {
      this.runtime.report(e, { during: 'session stream' })
      this.end()
      return undefined
    }))
  }

  #subscribe(uri: string, on: boolean): void {
    if (!on) return void this.#uris.delete(uri)
    this.#uris.add(uri)
    this.#follow([resourceUpdated(uri).topic])
  }

  #deliver(event: ChangeEvent | Resync): void {
    if (this.#done) return
    if (isResync(event)) {
      // Events may have been missed: cue a refetch of everything followed.
      for (const topic of this.#topics) if (topic.startsWith('list:')) this.#send(`notifications/${topic.slice(5)}/list_changed`)
      for (const uri of this.#uris) this.#send('notifications/resources/updated', { uri })
      return
    }
    const { topic, data } = event
    if (topic === sessionTopic(this.key)) {
      if (data?.ended === true) return this.end()
      if (typeof data?.uri === 'string') this.#subscribe(data.uri, data.on === true)
    } else if (topic.startsWith(RESOURCE)) {
      const uri = topic.slice(RESOURCE.length)
      if (this.#uris.has(uri)) this.#send('notifications/resources/updated', { uri })
    } else if (topic.startsWith('list:')) {
      this.#send(`notifications/${topic.slice(5)}/list_changed`)
    }
  }

  #send(method: string, params?: { uri: string }): void {
    this.sse?.write(notification(method, params))
  }
}
