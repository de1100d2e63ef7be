import { notification, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { isResync, listChanged, resourceUpdated, type ChangeEvent, type Resync, type Subscription } from '../state/backplane.js'
import { admit, release } from './listen.js'
import type { OpenStream } from './open-streams.js'
import type { Runtime } from './types.js'

const LISTS = ['tools', 'prompts', 'resources'] as const
const RESOURCE = resourceUpdated('').topic
const LIST = 'list:'

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
  /**
   * The backplane subscription of each topic it follows, one per topic: a URI unsubscribed gives its topic
   * back at once, and closing gives back all, so that neither a long-lived stream nor a reconnecting client
   * leaves topics behind. Subscribed one by one, they share a socket per hub (adapters/cloudflare/backplane.ts).
   */
  readonly #topics = new Map<string, Promise<Subscription | undefined>>()
  #done = false
  /** Where it writes: may be set once it is admitted, before any delivery can come. */
  sink: SessionSink | undefined
  readonly end = () => this.#end()
  readonly deliver = (event: ChangeEvent | Resync) => this.#deliver(event)

  constructor(private readonly runtime: Runtime, private readonly options: SessionStreamOptions, sink?: SessionSink) {
    this.expires = options.expires
    this.sink = sink
  }

  /** Counts it (Overloaded past the limits, thrown before anything is sent), then subscribes. */
  start(): void {
    admit(this.runtime, this.options.client)
    this.runtime.streams.add(this)
    const capabilities = this.runtime.capabilities()
    const { key, refresh, uris } = this.options
    for (const list of LISTS) if (capabilities[list]?.listChanged) this.#subscribe(listChanged(list).topic)
    for (const uri of uris) this.#subscribe(resourceUpdated(uri).topic)
    if (key === undefined) return
    this.#subscribe(sessionTopic(key))
    if (!refresh) return
    void this.#topics.get(sessionTopic(key))!.then(refresh).then((stored) => {
      if (stored === undefined) return this.#end()
      // What changed before the session's topic was followed, which no event told it.
      const kept = new Set(stored)
      for (const topic of this.#topics.keys()) if (topic.startsWith(RESOURCE) && !kept.has(topic.slice(RESOURCE.length))) this.#unsubscribe(topic)
      for (const uri of kept) this.follow(uri, true)
    }).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream' }))
  }

  /** Starts (or stops) carrying updates of a resource. */
  follow(uri: string, on: boolean): void {
    const topic = resourceUpdated(uri).topic
    if (on) this.#subscribe(topic)
    else this.#unsubscribe(topic)
  }

  #end(): void {
    if (this.#done) return
    this.#done = true
    this.sink?.close()
    release(this.runtime, this.options.client)
    this.runtime.streams.delete(this)
    for (const topic of [...this.#topics.keys()]) this.#unsubscribe(topic)
  }

  // Nothing once ended: a change told (or a refresh read) after the end would hold a topic for ever.
  #subscribe(topic: string): void {
    if (this.#done || this.#topics.has(topic)) return
    this.#topics.set(topic, this.runtime.backplane.subscribe([topic], this.deliver).catch((e: unknown) => {
      // The first failure ends the stream; those of its other topics say the same again.
      if (!this.#done) this.runtime.report(e, { during: 'session stream' })
      this.#end()
      return undefined
    }))
  }

  // One still being subscribed is closed once it is open.
  #unsubscribe(topic: string): void {
    const opened = this.#topics.get(topic)
    if (!opened) return
    this.#topics.delete(topic)
    void opened.then((s) => s?.close()).catch((e: unknown) => void this.runtime.report(e, { during: 'session stream close' }))
  }

  #deliver(event: ChangeEvent | Resync): void {
    if (this.#done) return
    if (isResync(event)) {
      // Events may have been missed: cue a refetch of everything followed.
      for (const topic of this.#topics.keys()) this.#cue(topic)
      return
    }
    const { topic, data } = event
    // A topic it does not follow (any more) may still come, on a socket it shares (adapters/cloudflare/backplane.ts).
    if (!this.#topics.has(topic)) return
    if (this.options.key !== undefined && topic === sessionTopic(this.options.key)) {
      if (data?.ended === true) return this.#end()
      if (typeof data?.uri === 'string') this.follow(data.uri, data.on === true)
    } else this.#cue(topic)
  }

  /** The notification of a change on `topic`, a list's or a resource's; none for the session's own. */
  #cue(topic: string): void {
    if (topic.startsWith(RESOURCE)) this.#send('notifications/resources/updated', { uri: topic.slice(RESOURCE.length) })
    else if (topic.startsWith(LIST)) this.#send(`notifications/${topic.slice(LIST.length)}/list_changed`)
  }

  #send(method: string, params?: { uri: string }): void {
    this.sink?.write(notification(method, params))
  }
}
