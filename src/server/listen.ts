import { META } from '../protocol/constants.js'
import { invalidParams } from '../protocol/errors.js'
import { isObject, notification, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import { topicOf, type ChangeEvent, type Listener, type Resync } from '../state/backplane.js'
import type { McpServer } from './server.js'

/** What a client may subscribe to with `subscriptions/listen` (DIGEST §8). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
}

/** Everything a transport needs to run one listen stream; the stream itself is the transport's. */
export interface ListenPlan {
  readonly id: JsonRpcId
  /** The filter as honoured: only what was asked for and what this server supports. */
  readonly honoured: SubscriptionFilter
  readonly topics: string[]
  /** The first message of the stream. */
  readonly ack: JsonRpcNotification
  /** The notifications an event becomes on this stream (none when the filter excludes it). */
  notificationsFor(event: ChangeEvent | Resync): JsonRpcNotification[]
  /** The result that ends the stream gracefully, or undefined where the version just closes it. */
  readonly endResult: JsonObject | undefined
}

const MAX_RESOURCE_SUBSCRIPTIONS = 1000

const LIST_KEYS = {
  toolsListChanged: { list: 'tools', method: 'notifications/tools/list_changed' },
  promptsListChanged: { list: 'prompts', method: 'notifications/prompts/list_changed' },
  resourcesListChanged: { list: 'resources', method: 'notifications/resources/list_changed' },
} as const

export function planListen(server: McpServer, id: JsonRpcId, params: JsonObject, profile: Profile): ListenPlan {
  const asked = params.notifications
  if (!isObject(asked)) throw invalidParams('params.notifications must be an object (the subscription filter)')
  const caps = server.capabilities()
  const honoured: SubscriptionFilter = {}
  const lists = new Map<string, string>()
  for (const [key, { list, method }] of Object.entries(LIST_KEYS)) {
    const value = asked[key]
    if (value !== undefined && typeof value !== 'boolean') throw invalidParams(`notifications.${key} must be a boolean`)
    const supported = list === 'tools' ? caps.tools?.listChanged : list === 'prompts' ? caps.prompts?.listChanged : caps.resources?.listChanged
    if (value && supported) {
      honoured[key as keyof typeof LIST_KEYS] = true
      lists.set(list, method)
    }
  }
  const uris = asked.resourceSubscriptions
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) {
      throw invalidParams('notifications.resourceSubscriptions must be an array of URIs')
    }
    if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw invalidParams(`notifications.resourceSubscriptions may name at most ${MAX_RESOURCE_SUBSCRIPTIONS} URIs`)
    }
    if (caps.resources?.subscribe) honoured.resourceSubscriptions = [...new Set(uris as string[])]
  }
  const subscribed = new Set(honoured.resourceSubscriptions)

  const tag = { [META.subscriptionId]: id }
  const make = (method: string, params: JsonObject = {}) => notification(method, { ...params, _meta: tag })
  const topics = [
    ...[...lists.keys()].map((list) => topicOf({ kind: 'list', list: list as 'tools' })),
    ...[...subscribed].map((uri) => topicOf({ kind: 'resource', uri })),
  ]

  return {
    id,
    honoured,
    topics,
    ack: make('notifications/subscriptions/acknowledged', { notifications: honoured }),
    notificationsFor(event) {
      if (event.kind === 'resync') {
        // Anything may have been missed: cue a refetch of everything this stream watches.
        return [...[...lists.values()].map((method) => make(method)), ...[...subscribed].map((uri) => make('notifications/resources/updated', { uri }))]
      }
      if (event.kind === 'list') {
        const method = lists.get(event.list)
        return method ? [make(method)] : []
      }
      return subscribed.has(event.uri) ? [make('notifications/resources/updated', { uri: event.uri })] : []
    },
    endResult: profile.listenResult
      ? { resultType: 'complete', _meta: { [META.subscriptionId]: id, ...(profile.serverInfoInResultMeta && { [META.serverInfo]: server.info }) } }
      : undefined,
  }
}

/**
 * Subscribes a stream's topics, then writes the acknowledgement, then every matching notification. Events
 * arriving while the subscription is being set up are held back until the ack is out: the ack must come
 * first, and a change made right after the client saw it must not be lost. Returns the unsubscribe.
 */
export async function openListen(server: McpServer, plan: ListenPlan, write: (message: JsonRpcNotification) => void): Promise<() => void> {
  let acked = false
  let closed = false
  const early: (ChangeEvent | Resync)[] = []
  const deliver: Listener = (event) => {
    if (closed) return
    if (!acked) return void early.push(event)
    for (const n of plan.notificationsFor(event)) write(n)
  }
  const subscription = await server.backplane.subscribe(plan.topics, deliver)
  write(plan.ack)
  acked = true
  for (const event of early.splice(0)) deliver(event)
  return () => {
    closed = true
    void subscription.close()
  }
}
