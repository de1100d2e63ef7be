import { fnv1a, parseEvent, shardOf } from '../../src/core.js'
import { RESYNC, type Backplane, type Listener, type Subscription } from '../../src/index.js'
import type { McpHub } from './hub.js'

/** Cloudflare allows at most 10 tags per hibernatable WebSocket. */
export const MAX_TAGS = 10
/**
 * The tag of a socket that takes every change its hub publishes: what a subscription with more than MAX_TAGS
 * topics on one hub holds, so that a listen costs one socket per hub whatever its filter. It stands alone on
 * its socket (the hub refuses it beside other tags), so no publish reaches a socket twice.
 */
export const ALL_TOPICS = '*'
/** The header of the WebSocket upgrade that names a socket's tags. */
export const TOPICS_HEADER = 'x-mcp-topics'

export interface HubBackplaneOptions {
  /** The McpHub namespace; a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<McpHub>
  /** Hubs to spread topics over (default 4). Every Worker of one server must use the same number. */
  shards?: number | undefined
  /** Name prefix of the hub objects, to keep several servers apart in one namespace (default `mcp-hub-`). */
  name?: string | undefined
  /** Told when a hub connection is lost (once per loss; it is re-opened with backoff). Default: stderr. */
  onError?: ((error: unknown) => void) | undefined
}

/** A socket tag for a topic: the topic itself, or a hash when it is longer than a tag may be. */
export function tagOf(topic: string): string {
  return topic.length <= 200 ? topic : `hash:${fnv1a(topic).toString(36)}:${topic.length}`
}

/**
 * The Workers backplane: publishes go to the hub that owns the topic's shard; each listen stream holds one
 * WebSocket to every hub owning one of its topics, tagged with those topics, or with ALL_TOPICS when they are
 * more than a socket has tags (a Worker may open only so many connections). The hub's messages are filtered
 * again by the stream, so hashed tags may collide, and a hub-wide socket may carry strangers, harmlessly.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, type FetchHandler } from 'mcp-edge'
 * import { hubBackplane, type McpHub } from 'mcp-edge/cloudflare'
 *
 * export { McpHub } from 'mcp-edge/cloudflare'
 * interface Env { MCP_HUB: DurableObjectNamespace<McpHub> }
 *
 * const server = new McpServer({ name: 'news', version: '1.0.0' })
 *   .resource('news://latest', { name: 'latest' }, () => 'nothing yet')
 *
 * // What createWorker does with the MCP_HUB binding, in a fetch handler of your own.
 * let handler: FetchHandler | undefined
 * export default {
 *   fetch: (request, env) => (handler ??= createFetchHandler(server, {
 *     allowedHosts: '*',
 *     backplane: hubBackplane({ namespace: () => env.MCP_HUB, shards: 8 }),
 *   }))(request, { env }),
 * } satisfies ExportedHandler<Env>
 * ```
 */
export function hubBackplane(options: HubBackplaneOptions): Backplane {
  const shards = options.shards ?? 4
  const name = options.name ?? 'mcp-hub-'
  const onError = options.onError ?? ((e: unknown) => console.error('mcp-edge: a hub connection was lost:', e))
  const hub = (shard: number) => {
    const ns = options.namespace()
    return ns.get(ns.idFromName(`${name}${shard}`))
  }
  return {
    kind: 'durable-objects',
    async publish(event) {
      await hub(shardOf(event.topic, shards)).publish(tagOf(event.topic), JSON.stringify(event))
    },
    async subscribe(topics, listener) {
      const groups = new Map<number, string[]>()
      for (const topic of new Set(topics)) {
        const shard = shardOf(topic, shards)
        const tags = groups.get(shard) ?? []
        const tag = tagOf(topic)
        if (!tags.includes(tag)) tags.push(tag)
        groups.set(shard, tags)
      }
      const links: HubLink[] = []
      try {
        for (const [shard, tags] of groups) {
          const wide = tags.length > MAX_TAGS || tags.includes(ALL_TOPICS)
          links.push(await link(() => hub(shard), wide ? [ALL_TOPICS] : tags, listener, onError))
        }
      } catch (e) {
        for (const l of links) l.close()
        throw e
      }
      return {
        async close() {
          for (const l of links) l.close()
        },
      } satisfies Subscription
    },
  }
}

interface HubLink { close(): void }

/**
 * One WebSocket to a hub, re-opened with backoff if the hub drops it (a deploy, a restart). After a
 * reconnect the listener gets a resync: what was published while the socket was down is gone.
 */
async function link(stub: () => DurableObjectStub<McpHub>, tags: string[], listener: Listener, onError: (error: unknown) => void): Promise<HubLink> {
  let socket: WebSocket | undefined
  let closed = false
  let attempt = 0

  const connect = async () => {
    const res = await stub().fetch('https://hub/subscribe', { headers: { upgrade: 'websocket', [TOPICS_HEADER]: JSON.stringify(tags) } })
    const ws = res.webSocket
    if (!ws) throw new Error(`the hub refused the subscription (${res.status})`)
    ws.accept()
    ws.addEventListener('message', (e) => {
      // parseEvent takes nothing but an event's JSON: a binary frame (the hub sends none) is no event either.
      const event = parseEvent(String(e.data))
      if (event) listener(event)
    })
    // A socket's close comes once, and while it is still `socket`: a reconnect replaces it only after.
    ws.addEventListener('close', (e) => {
      if (closed) return
      onError(new Error(`the hub closed the connection (${e.code} ${e.reason})`))
      void reconnect()
    })
    socket = ws
  }
  const reconnect = async () => {
    while (!closed) {
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt++, 5000)))
      if (closed) return
      try {
        await connect()
        attempt = 0
        listener(RESYNC)
        return
      } catch {
        // The loss is reported already; try again after the backoff.
      }
    }
  }

  await connect()
  return {
    close() {
      closed = true
      try {
        socket?.close(1000, 'unsubscribed')
      } catch {
        // already closed
      }
    },
  }
}
