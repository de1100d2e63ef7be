import { META_SUBSCRIPTION_ID } from '../protocol/constants.js'
import { invalidParams, Overloaded } from '../protocol/errors.js'
import { isObject, notification, type JsonObject } from '../protocol/jsonrpc.js'
import { isResync, listChanged, resourceUpdated, type ChangeEvent, type Resync, type Subscription } from '../state/backplane.js'
import type { Call, ListenField, MethodDescriptor } from './types.js'

const MAX_RESOURCE_SUBSCRIPTIONS = 1000

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

const resourceSubscriptions: ListenField = {
  key: 'resourceSubscriptions',
  honour(value, call) {
    if (value === undefined) return undefined
    if (!Array.isArray(value) || !value.every((u) => typeof u === 'string')) {
      throw invalidParams('notifications.resourceSubscriptions must be an array of URIs')
    }
    if (value.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw invalidParams(`notifications.resourceSubscriptions may name at most ${MAX_RESOURCE_SUBSCRIPTIONS} URIs`)
    }
    // Every URI is held as long as the stream and echoed in its acknowledgement: their size is bounded too.
    const { maxFilterChars } = call.runtime.listenLimits
    if ((value as string[]).reduce((n, uri) => n + uri.length, 0) > maxFilterChars) {
      throw invalidParams(`notifications.resourceSubscriptions may name at most ${maxFilterChars} characters of URIs`)
    }
    if (!call.runtime.capabilities().resources?.subscribe) return undefined
    // Only what the asker may read: no watching another user's resources, or ones that do not exist.
    const uris = [...new Set(value as string[])].filter((uri) => call.runtime.readable(uri, call))
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

/** A listen request, its filter honoured: what the stream acknowledges and which field each topic belongs to. */
interface Plan {
  readonly honoured: JsonObject
  readonly fields: Map<string, ListenField>
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
    const asked = call.params.notifications
    if (!isObject(asked)) throw invalidParams('params.notifications must be an object (the subscription filter)')
    const honoured: JsonObject = {}
    const fields = new Map<string, ListenField>()
    for (const field of call.runtime.listenFields) {
      const agreed = field.honour(asked[field.key], call)
      if (!agreed) continue
      honoured[field.key] = agreed.value
      for (const topic of agreed.topics) fields.set(topic, field)
    }
    return { honoured, fields }
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
  const release = admit(call)
  return new Promise((resolve, reject) => new ListenStream(call, plan, release, resolve, reject).start())
}

/**
 * One open stream. A class rather than a dozen closures over one scope: a server holds tens of thousands
 * of these, and each closure and scope costs its own bytes.
 */
class ListenStream {
  #subscription: Subscription | undefined
  #live = false
  #done = false
  #ending: JsonObject | undefined
  #lifetime: ReturnType<typeof setTimeout> | undefined
  #early: (ChangeEvent | Resync)[] = []
  readonly #tag: JsonObject
  // Handed to the runtime's open streams, the cancellation and the backplane: each bound once.
  readonly end = () => this.#finish(true)
  readonly leave = () => this.#finish(false)
  readonly deliver = (event: ChangeEvent | Resync) => {
    if (this.#done) return
    if (!this.#live) return void this.#early.push(event)
    const { call, plan } = this
    if (isResync(event)) {
      for (const [field, honoured] of fieldsOf(plan)) for (const n of field.notifications(undefined, honoured, call)) this.#send(n)
      return
    }
    const field = plan.fields.get(event.topic)
    if (field) for (const n of field.notifications(event, plan.honoured[field.key], call)) this.#send(n)
  }

  constructor(
    private readonly call: Call,
    private readonly plan: Plan,
    private readonly release: () => void,
    private readonly resolve: (result: JsonObject | undefined) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.#tag = { [META_SUBSCRIPTION_ID]: call.id }
  }

  start(): void {
    const { runtime, transport } = this.call
    runtime.streams.add(this.end)
    transport.cancel.onAbort(this.leave)
    runtime.backplane.subscribe([...this.plan.fields.keys()], this.deliver).then(
      (opened) => this.#opened(opened),
      (e) => {
        this.#finish(false)
        this.reject(e)
      },
    )
  }

  #opened(opened: Subscription): void {
    this.#subscription = opened
    if (this.#done) return this.#close(opened)
    this.#send({ method: 'notifications/subscriptions/acknowledged', params: { notifications: this.plan.honoured } })
    this.#live = true
    for (const event of this.#early.splice(0)) this.deliver(event)
    const { runtime, transport } = this.call
    const left = Math.min(runtime.maxListenMs ?? Infinity, (transport.deadline ?? Infinity) - Date.now())
    if (left !== Infinity) this.#lifetime = setTimeout(this.end, Math.max(0, left))
  }

  #send(n: { method: string; params?: JsonObject }): void {
    this.call.transport.emit(notification(n.method, { ...n.params, _meta: this.#tag }))
  }

  // Settles once the subscription is closed: a stream ended during setup waits for it to open first.
  #finish(graceful: boolean): void {
    if (this.#done) return
    this.#done = true
    this.#ending = graceful && this.call.profile.listenResult ? { resultType: 'complete', _meta: this.#tag } : undefined
    this.release()
    this.call.runtime.streams.delete(this.end)
    this.call.transport.cancel.offAbort(this.leave)
    if (this.#lifetime !== undefined) clearTimeout(this.#lifetime)
    if (this.#subscription) this.#close(this.#subscription)
  }

  // A backplane whose close fails must not leave a rejection nobody handles (Lambda's runtime exits on one).
  #close(opened: Subscription): void {
    void opened.close().catch((e) => this.call.runtime.report(e, { during: 'listen close' })).finally(() => this.resolve(this.#ending))
  }
}

const RETRY_AFTER_SEC = 10

/**
 * Counts a new stream against the runtime's limits, or refuses it before anything is sent: 503 when the
 * runtime holds its most, 429 when the client does (a principal, or an anonymous client's address; a client
 * the runtime cannot tell apart counts against the total only). Returns what gives its place back.
 */
function admit(call: Call): () => void {
  const { runtime } = call
  const { maxStreams, maxStreamsPerClient } = runtime.listenLimits
  if (runtime.streams.size >= maxStreams) {
    throw new Overloaded(`This server holds ${maxStreams} listen streams, its most: try again later`, 'server', RETRY_AFTER_SEC)
  }
  const address = call.transport.clientAddress
  const client = call.principal ?? (address === undefined ? undefined : `address ${address}`)
  if (client === undefined) return () => {}
  const open = runtime.streamsByClient.get(client) ?? 0
  if (open >= maxStreamsPerClient) {
    throw new Overloaded(`This client has ${open} listen streams open, its most: close one before opening another`, 'client', RETRY_AFTER_SEC)
  }
  runtime.streamsByClient.set(client, open + 1)
  return () => {
    const left = runtime.streamsByClient.get(client)! - 1
    if (left > 0) runtime.streamsByClient.set(client, left)
    else runtime.streamsByClient.delete(client)
  }
}

/** Each honoured field once, with its honoured value: what a resync cues a refetch of. */
function fieldsOf(plan: Plan): [ListenField, unknown][] {
  return [...new Set(plan.fields.values())].map((field) => [field, plan.honoured[field.key]])
}
