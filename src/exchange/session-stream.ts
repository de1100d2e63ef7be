import { notification, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { isResync, listChanged, resourceUpdated, type ChangeEvent, type Resync, type Subscription } from '../state/backplane.js'
import { admit, release } from './listen.js'
import type { OpenStream } from './open-streams.js'
import type { Runtime } from './types.js'

const LISTS = ['tools', 'prompts', 'resources'] as const
const RESOURCE = resourceUpdated('').topic

/** Where changes of one session are told to its open streams, on every instance. */
export const sessionTopic = (key: string) => `session:${key}`

/** Where a session stream writes (an SSE response, stdout), and how it is closed. */
export interface SessionSink {
  write(message: JsonRpcNotification): void
  close(): void
}

export interface SessionStreamOptions {
  /** The session's key, where its subscriptions can change on other instances (their changes come on its topic). */
  readonly key?: string | undefined
  /** Resource URIs subscribed to when it opens. */
  readonly uris: readonly string[]
  /** Whose share of the listen limits it takes (clientShare). */
  readonly client: string | undefined
  /** When it ends (ms since the epoch; Infinity for never). */
  readonly expires: number
  /**
   * The session's subscriptions as stored, read again once the stream follows the session's topic (a change
   * made in between would be lost otherwise); undefined when the session has ended.
   */
  readonly refresh?: (() => Promise<readonly string[] | undefined>) | undefined
}

/**
 * A 2025 session's notifications, as its GET stream (HTTP) or stdout (stdio) carries them: the list changes
 * the server advertises and `notifications/resources/updated` for the URIs the session subscribed to,
 * whichever instance made the change. Subscriptions change while it is open (`follow`, or an event on the
 * session's topic from another instance: a subscribe there, or the session's end). It counts among the
 * client's listen streams.
 */
export class SessionStream implements OpenStream {
  readonly expires: number
  readonly #uris: Set<string>
  /** Topics subscribed so far: a URI unsubscribed keeps its topic, and is filtered out at delivery. */
  readonly #topics = new Set<string>()
  readonly #subscriptions: Promise<Subscription | undefined>[] = []
  #done = false
  /** Where it writes: may be set once it is admitted, before any delivery can come. */
  sink: SessionSink | undefined
  readonly end = () => this.#end()
  readonly deliver = (event: ChangeEvent | Resync) => this.#deliver(event)

  constructor(private readonly runtime: Runtime, private readonly options: SessionStreamOptions, sink?: SessionSink) {
    this.#uris = new Set(options.uris)
    this.expires = options.expires
    this.sink = sink
  }

  /** Counts it (Overloaded past the limits, thrown before anything is sent), then subscribes. */
  start(): void {
    admit(this.runtime, this.options.client)
    this.runtime.streams.add(this)
    const capabilities = this.runtime.capabilities()
    const lists = LISTS.filter((list) => capabilities[list]?.listChanged).map((list) => listChanged(list).topic)
    const { key, refresh } = this.options
    this.#subscribe([...(key === undefined ? [] : [sessionTopic(key)]), ...lists, ...[...this.#uris].map((uri) => resourceUpdated(uri).topic)])
    if (!refresh) return
    void this.#subscriptions[0]!.then(refresh).then((uris) => {
      if (uris === undefined) return this.#end()
      for (const uri of uris) this.follow(uri, true)
    }).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream' }))
  }

  /** Starts (or stops) carrying updates of a resource. */
  follow(uri: string, on: boolean): void {
    if (!on) return void this.#uris.delete(uri)
    this.#uris.add(uri)
    this.#subscribe([resourceUpdated(uri).topic])
  }

  #end(): void {
    if (this.#done) return
    this.#done = true
    this.sink?.close()
    release(this.runtime, this.options.client)
    this.runtime.streams.delete(this)
    for (const opened of this.#subscriptions) {
      void opened.then((s) => s?.close()).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream close' }))
    }
  }

  #subscribe(topics: readonly string[]): void {
    const fresh = topics.filter((t) => !this.#topics.has(t))
    if (fresh.length === 0) return
    for (const topic of fresh) this.#topics.add(topic)
    this.#subscriptions.push(this.runtime.backplane.subscribe(fresh, this.deliver).catch((e: unknown) => {
      this.runtime.report(e, { during: 'session stream' })
      this.#end()
      return undefined
    }))
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
    if (this.options.key !== undefined && topic === sessionTopic(this.options.key)) {
      if (data?.ended === true) return this.#end()
      if (typeof data?.uri === 'string') this.follow(data.uri, data.on === true)
    } else if (topic.startsWith(RESOURCE)) {
      const uri = topic.slice(RESOURCE.length)
      if (this.#uris.has(uri)) this.#send('notifications/resources/updated', { uri })
    } else {
      // A list's topic: the only other kind it subscribes to.
      this.#send(`notifications/${topic.slice(5)}/list_changed`)
    }
  }

  #send(method: string, params?: { uri: string }): void {
    this.sink?.write(notification(method, params))
  }
}
