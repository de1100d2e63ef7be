import { INVALID_REQUEST, META_SUBSCRIPTION_ID } from '../protocol/constants.js'
import { invalidParams, McpError, Overloaded } from '../protocol/errors.js'
import { isObject, notification, type JsonObject, type JsonRpcId } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import { isResync, listChanged, resourceUpdated, type ChangeEvent, type Resync, type Subscription } from '../state/backplane.js'
import { clientShare } from './client-share.js'
import type { OpenStream } from './open-streams.js'
import type { Call, ListenAsker, ListenField, MethodDescriptor, RequestWatch, Runtime, Transport } from './types.js'

const MAX_NAMED = 1000

function listField(key: string, list: 'tools' | 'prompts' | 'resources'): ListenField {
  const topic = listChanged(list).topic
  const changed = [{ method: `notifications/${list}/list_changed` }]
  return {
    key,
    honour(value, call) {
      if (value !== undefined && typeof value !== 'boolean') throw invalidParams(`notifications.${key} must be a boolean`)
      return value && call.runtime.capabilities()[list]?.listChanged ? { value: true, topics: [topic] } : undefined
    },
    notifications: () => changed,
  }
}

const RESOURCE = resourceUpdated('').topic

/**
 * A filter member that names things (URIs, task ids): an array of at most 1,000 distinct strings, each
 * passing `valid`, within the listen budget of characters in all. The stream holds every one for its life
 * and echoes them in its acknowledgement, so their number and their size are both bounded.
 */
export function namedList(value: unknown, call: Call, key: string, noun: string, valid: (item: string) => boolean = () => true): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && valid(item))) {
    throw invalidParams(`notifications.${key} must be an array of ${noun}s`)
  }
  if (value.length > MAX_NAMED) throw invalidParams(`notifications.${key} may name at most ${MAX_NAMED} ${noun}s`)
  const { maxFilterChars } = call.runtime.listenLimits
  if ((value as string[]).reduce((n, item) => n + item.length, 0) > maxFilterChars) {
    throw invalidParams(`notifications.${key} may name at most ${maxFilterChars} characters of ${noun}s`)
  }
  return [...new Set(value as string[])]
}

const resourceSubscriptions: ListenField = {
  key: 'resourceSubscriptions',
  honour(value, call) {
    if (value === undefined) return undefined
    const named = namedList(value, call, 'resourceSubscriptions', 'URI')
    if (!call.runtime.capabilities().resources?.subscribe) return undefined
    // Only what the asker may read: no watching another user's resources, or ones that do not exist.
    const uris = named.filter((uri) => call.runtime.readable(uri, call))
    return { value: uris, topics: uris.map((uri) => resourceUpdated(uri).topic) }
  },
  notifications(event, honoured) {
    const uris = event ? [event.topic.slice(RESOURCE.length)] : (honoured as string[])
    return uris.map((uri) => ({ method: 'notifications/resources/updated', params: { uri } }))
  },
}

/** The filter members of the protocol itself (DIGEST §8); extensions add theirs. */
export const CORE_LISTEN_FIELDS: readonly ListenField[] = [
  listField('toolsListChanged', 'tools'),
  listField('promptsListChanged', 'prompts'),
  listField('resourcesListChanged', 'resources'),
  resourceSubscriptions,
]

/**
 * A listen request, its filter honoured: what the stream acknowledges, its topics, and the field each topic
 * belongs to (`fields[i]` is that of `topics[i]`). Two arrays of their exact length rather than a Map: a
 * stream holds its plan for its whole life, and a Map starts at some 160 bytes.
 */
interface Plan {
  readonly honoured: JsonObject
  readonly topics: readonly string[]
  readonly fields: readonly ListenField[]
}

/**
 * `subscriptions/listen`: a stream whose first message is the acknowledgement, then one notification per
 * matching change, until the client leaves (the transport aborts), the lifetime limit, the transport's
 * deadline or shutdown ends it gracefully (a SubscriptionsListenResult where the version has one).
 */
export const listen: MethodDescriptor<Plan> = {
  method: 'subscriptions/listen',
  eras: ['modern'],
  target(call) {
    const unavailable = call.runtime.listenUnavailable
    if (unavailable !== undefined) throw new McpError(INVALID_REQUEST, unavailable)
    const asked = call.params.notifications
    if (!isObject(asked)) throw invalidParams('params.notifications must be an object (the subscription filter)')
    const honoured: JsonObject = {}
    const topics: string[] = []
    const fields: ListenField[] = []
    for (const field of call.runtime.listenFields) {
      const agreed = field.honour(asked[field.key], call)
      if (!agreed) continue
      honoured[field.key] = agreed.value
      for (const topic of agreed.topics) {
        topics.push(topic)
        fields.push(field)
      }
    }
    // Copies of their exact length: an array grown by push keeps room for 17 or more.
    return { honoured, topics: topics.slice(), fields: fields.slice() }
  },
  run: (call, plan) => stream(call, plan),
  stream: true,
}

/**
 * Subscribes, then writes the acknowledgement, then every matching notification. Events arriving while the
 * subscription is being set up are held back until the ack is out: the ack must come first, and a change
 * made right after the client saw it must not be lost. The ending is registered before the subscribe, so
 * that neither a client leaving nor a shutdown during setup leaves a subscription behind.
 */
function stream(call: Call, plan: Plan): Promise<JsonObject | undefined> {
  admit(call.runtime, clientShare(call.principal, call.transport))
  return new Promise((resolve) => new ListenStream(call, plan, resolve).start())
}

/**
 * One open stream. A class rather than a dozen closures over one scope: a server holds tens of thousands
 * of these, and each closure and scope costs its own bytes. It keeps of its Call only what it uses: the
 * request's params and envelope are not held for the stream's life.
 */
class ListenStream implements OpenStream, ListenAsker {
  readonly runtime: Runtime
  readonly transport: Transport
  readonly profile: Profile
  readonly principal: string | undefined
  readonly id: JsonRpcId
  readonly watch: RequestWatch | undefined
  /** When the stream's lifetime or its transport's deadline is over, whichever comes first. */
  readonly expires: number
  #subscription: Subscription | undefined
  /** Its key where the backplane counts it among the client's streams on every instance (#shared), to give back. */
  #counted: string | undefined
  #done = false
  #ending: JsonObject | undefined
  // Events held back until the acknowledgement is out; undefined from then on.
  #early: (ChangeEvent | Resync)[] | undefined = []
  // Handed to the cancellation and the backplane, each bound once: a bound method costs less than an arrow
  // function and the scope it keeps `this` in.
  readonly leave = this.#leave.bind(this)
  readonly deliver = this.#deliver.bind(this)

  constructor(
    call: Call,
    private readonly plan: Plan,
    // Only resolve: a failure settles it with a rejected promise, and the pair's reject is not kept.
    private readonly resolve: (result: JsonObject | undefined | Promise<never>) => void,
  ) {
    const { runtime, transport } = call
    this.runtime = runtime
    this.transport = transport
    this.profile = call.profile
    this.principal = call.principal
    this.id = call.id
    this.watch = call.watch
    this.expires = Math.min(Date.now() + runtime.maxListenMs, transport.deadline ?? Infinity)
  }

  #leave(): void {
    this.#finish(false)
  }

  #deliver(event: ChangeEvent | Resync): void {
    if (this.#done) return
    if (this.#early) return void this.#early.push(event)
    const { plan } = this
    if (isResync(event)) {
      this.watch?.delivered?.(event)
      for (const [field, honoured] of fieldsOf(plan)) for (const n of field.notifications(undefined, honoured, this)) this.#send(n)
      return
    }
    const field = plan.fields[plan.topics.indexOf(event.topic)]
    if (!field) return
    this.watch?.delivered?.(event)
    for (const n of field.notifications(event, plan.honoured[field.key], this)) this.#send(n)
  }

  end(): void {
    this.#finish(true)
  }

  start(): void {
    this.runtime.streams.add(this)
    this.transport.cancel.onAbort(this.leave)
    this.#shared().then(() => this.runtime.backplane.subscribe(this.plan.topics, this.deliver)).then(
      (opened) => this.#opened(opened),
      (e: unknown) => {
        this.#finish(false)
        this.resolve(Promise.reject(e))
      },
    )
  }

  /**
   * The client's place among its streams on every instance, where the backplane counts them: refused past
   * its most (429). A count that fails (the store is down) lets the stream open on this instance's count.
   */
  async #shared(): Promise<void> {
    const { backplane, listenLimits } = this.runtime
    const client = clientShare(this.principal, this.transport)
    if (!backplane.admitStream || client === undefined || !Number.isFinite(listenLimits.maxStreamsPerClient + this.expires)) return
    const key = crypto.randomUUID()
    const admitted = await backplane.admitStream(client, key, listenLimits.maxStreamsPerClient, this.expires + SHARED_MARGIN_MS).catch((e: unknown) => {
      this.runtime.report(e, { during: 'listen count' })
      return undefined
    })
    if (admitted === false) throw clientFull(listenLimits.maxStreamsPerClient)
    if (!admitted) return
    this.#counted = key
    // Ended while it was being counted (the client left): #finish found nothing to give back yet.
    if (this.#done) this.#uncount(client)
  }

  #opened(opened: Subscription): void {
    this.#subscription = opened
    if (this.#done) return this.#close(opened)
    this.#send({ method: 'notifications/subscriptions/acknowledged', params: { notifications: this.plan.honoured } })
    const early = this.#early!
    this.#early = undefined
    for (const event of early) this.deliver(event)
  }

  // Made for each message rather than kept: a stream sends rarely, and is held for hours.
  #tag(): JsonObject {
    return { [META_SUBSCRIPTION_ID]: this.id }
  }

  #send(n: { method: string; params?: JsonObject }): void {
    this.transport.emit(notification(n.method, { ...n.params, _meta: this.#tag() }))
  }

  // Settles once the subscription is closed: a stream ended during setup waits for it to open first.
  #finish(graceful: boolean): void {
    if (this.#done) return
    this.#done = true
    this.#ending = graceful && this.profile.listenResult ? { resultType: 'complete', _meta: this.#tag() } : undefined
    // Worked out again rather than kept: a stream would hold a string of its own for hours.
    const client = clientShare(this.principal, this.transport)
    release(this.runtime, client)
    if (client !== undefined) this.#uncount(client)
    this.runtime.streams.delete(this)
    this.transport.cancel.offAbort(this.leave)
    if (this.#subscription) this.#close(this.#subscription)
  }

  #uncount(client: string): void {
    const key = this.#counted
    if (key === undefined) return
    this.#counted = undefined
    void this.runtime.backplane.releaseStream?.(client, key).catch((e: unknown) => this.runtime.report(e, { during: 'listen count' }))
  }

  // A backplane whose close fails must not leave a rejection nobody handles (Lambda's runtime exits on one).
  #close(opened: Subscription): void {
    void opened.close().catch((e) => this.runtime.report(e, { during: 'listen close' })).finally(() => this.resolve(this.#ending))
  }
}

const RETRY_AFTER_SEC = 10
/** A shared count outlives its stream by this much: an instance that dies without releasing it frees it then. */
const SHARED_MARGIN_MS = 60_000

/**
 * Counts a new stream (a listen stream, a 2025 session's GET stream) against the runtime's limits, or
 * refuses it before anything is sent: 503 when the runtime holds its most, 429 when the client does (a
 * principal, or an anonymous client's address; a client the runtime cannot tell apart, `undefined`, counts
 * against the total only).
 */
export function admit(runtime: Runtime, client: string | undefined): void {
  const { maxStreams, maxStreamsPerClient } = runtime.listenLimits
  if (runtime.streams.size >= maxStreams) {
    throw new Overloaded(`This server holds ${maxStreams} listen streams, its most: try again later`, 'server', RETRY_AFTER_SEC)
  }
  if (client === undefined) return
  const open = runtime.streamsByClient.get(client) ?? 0
  if (open >= maxStreamsPerClient) throw clientFull(open)
  runtime.streamsByClient.set(client, open + 1)
}

const clientFull = (open: number) =>
  new Overloaded(`This client has ${open} listen streams open, its most: close one before opening another`, 'client', RETRY_AFTER_SEC)

/** Gives the place admit took back. */
export function release(runtime: Runtime, client: string | undefined): void {
  if (client === undefined) return
  const left = runtime.streamsByClient.get(client)! - 1
  if (left > 0) runtime.streamsByClient.set(client, left)
  else runtime.streamsByClient.delete(client)
}

/** Each honoured field once, with its honoured value: what a resync cues a refetch of. */
function fieldsOf(plan: Plan): [ListenField, unknown][] {
  return [...new Set(plan.fields)].map((field) => [field, plan.honoured[field.key]])
}
