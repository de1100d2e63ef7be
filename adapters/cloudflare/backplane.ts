import { fnv1a, Overloaded, parseEvent, shardOf } from '../../src/core.js'
import { RESYNC, type Backplane, type Listener, type Subscription } from '../../src/index.js'
import type { McpHub } from './hub.js'
import { RESYNC_FRAME, TREE_HEADER } from './hub-tree.js'

/** A full tree's Retry-After: streams end and make room all the time. */
const FULL_RETRY_SEC = 30

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
/** The header of the WebSocket upgrade that says how many sockets the hub may hold in all. */
export const MAX_SOCKETS_HEADER = 'x-mcp-max-sockets'
/** Cloudflare accepts at most 32,768 hibernatable WebSockets per Durable Object; this leaves a margin. */
export const SOCKET_LIMIT = 32_000

export interface HubBackplaneOptions {
  /** The McpHub namespace; a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<McpHub>
  /** Hubs to spread topics over (default 4). Every Worker of one server must use the same number. */
  shards?: number | undefined
  /** Name prefix of the hub objects, to keep several servers apart in one namespace (default `mcp-hub-`). */
  name?: string | undefined
  /** Told when a hub connection is lost (once per loss; it is re-opened with backoff). Default: stderr. */
  onError?: ((error: unknown) => void) | undefined
  /**
   * Relay hubs per shard (default 0: listen streams connect to the shard's hub itself). With N relays, each
   * stream connects to one of them, picked at random, and the shard's hub passes every publish on to the
   * relays that hold streams, one call each: a topic then takes N times `maxSocketsPerHub` streams, for one
   * hop more. About one relay per 20,000 streams of the busiest topic (README, Deploy to Cloudflare).
   */
  relays?: number | undefined
  /** Sockets a hub or relay holds at most (default 25,000, at most 32,000); past it, a stream tries another relay. */
  maxSocketsPerHub?: number | undefined
  /** The name under which the namespace is bound (default `MCP_HUB`): a relay reaches its root through it. */
  binding?: string | undefined
}

/** A socket tag for a topic: the topic itself, or a hash when it is longer than a tag may be. */
export function tagOf(topic: string): string {
  return topic.length <= 200 ? topic : `hash:${fnv1a(topic).toString(36)}:${topic.length}`
}

/**
 * The Workers backplane: publishes go to the hub that owns the topic's shard; each listener (a listen or
 * session stream) holds one WebSocket to every hub owning one of its topics, however many subscriptions it
 * makes, tagged with those topics, or with ALL_TOPICS when they are more than a socket has tags (a Worker
 * may open only so many connections): at most `shards` sockets per stream. The hub's messages are filtered
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
  const relays = whole(options.relays ?? 0, 0, 1000, 'relays')
  const door: Door = {
    max: String(whole(options.maxSocketsPerHub ?? 25_000, 1, SOCKET_LIMIT, 'maxSocketsPerHub')),
    binding: options.binding ?? 'MCP_HUB',
    stub: (object) => {
      const ns = options.namespace()
      return ns.get(ns.idFromName(object))
    },
  }
  const hub = (shard: number) => door.stub(`${name}${shard}`)
  /** Each listener's socket on each shard, by shard: kept as long as the listener is (a stream, ended, is let go). */
  const held = new WeakMap<Listener, SharedLink[]>()
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
      const links = held.get(listener) ?? []
      held.set(listener, links)
      const taken: [SharedLink, string[]][] = []
      let open = true
      const subscription: Subscription = {
        async close() {
          if (!open) return
          open = false
          // A socket that fails to open as tags are given back was wanted by a subscribe, which is told.
          await Promise.all(taken.map(([shared, tags]) => shared.change(tags, -1).catch(() => {})))
        },
      }
      try {
        for (const [shard, tags] of groups) {
          const root = `${name}${shard}`
          const doors = relays === 0 ? [{ object: root }] : Array.from({ length: relays }, (_, i) => ({ object: `${root}.${i}`, root }))
          const shared = links[shard] ??= new SharedLink((wanted) => link(door, doors, wanted, listener, onError))
          taken.push([shared, tags])
          await shared.change(tags, 1)
        }
      } catch (e) {
        void subscription.close()
        throw e
      }
      return subscription
    },
  }
}

/**
 * One listener's socket on one hub (or a relay of it), shared by all its subscriptions there: a session
 * stream subscribes one topic at a time (src/exchange/session-stream.ts), and a socket each would let one
 * stream hold a thousand. A socket's tags are fixed at its upgrade, so a tag it lacks opens another for every
 * tag wanted (ALL_TOPICS past MAX_TAGS), then the old one closes; a tag given back stays on the socket until
 * then (the listener drops what it does not follow), and the last closes it. Changes take turns, and each
 * turn serves every tag added before it runs: subscriptions made together open one socket.
 */
class SharedLink {
  /** Subscriptions of each tag. */
  readonly #wanted = new Map<string, number>()
  /** The socket, and the tags it was opened with. */
  #link: HubLink | undefined
  #tags: readonly string[] = []
  #turn: Promise<void> = Promise.resolve()

  constructor(private readonly open: (tags: string[]) => Promise<HubLink>) {}

  /** Counts `tags` in (`by` 1) or out (-1); resolves once a socket carries every tag wanted. */
  change(tags: readonly string[], by: 1 | -1): Promise<void> {
    for (const tag of tags) {
      const n = (this.#wanted.get(tag) ?? 0) + by
      if (n > 0) this.#wanted.set(tag, n)
      else this.#wanted.delete(tag)
    }
    const turn = this.#turn.then(() => this.#apply())
    this.#turn = turn.catch(() => {})
    return turn
  }

  async #apply(): Promise<void> {
    const old = this.#link
    const wanted = [...this.#wanted.keys()]
    if (wanted.length === 0) {
      this.#link = undefined
      return old?.close()
    }
    if (old && (this.#tags[0] === ALL_TOPICS || wanted.every((tag) => this.#tags.includes(tag)))) return
    const tags = wanted.length > MAX_TAGS || wanted.includes(ALL_TOPICS) ? [ALL_TOPICS] : wanted
    this.#link = await this.open(tags)
    this.#tags = tags
    old?.close()
  }
}

function whole(value: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`hubBackplane: ${what} must be a whole number from ${min} to ${max}`)
  return value
}

/** How a stream reaches hubs: the objects by name, and what every upgrade says. */
interface Door {
  readonly max: string
  readonly binding: string
  stub(object: string): DurableObjectStub<McpHub>
}

/** An object a stream may connect to: a shard's hub, or one of its relays (then with the root it relays). */
interface HubDoor { readonly object: string; readonly root?: string }

interface HubLink { close(): void }

/**
 * A socket on one of `doors`, from a random one on, past those that are full (503); a full tree refuses the
 * listen as the server's limit (503, Retry-After).
 */
async function open(door: Door, doors: HubDoor[], tags: string[]): Promise<WebSocket> {
  const first = Math.floor(Math.random() * doors.length)
  for (let i = 0; i < doors.length; i++) {
    const { object, root } = doors[(first + i) % doors.length]!
    const headers: Record<string, string> = { upgrade: 'websocket', [TOPICS_HEADER]: JSON.stringify(tags), [MAX_SOCKETS_HEADER]: door.max }
    if (root) headers[TREE_HEADER] = JSON.stringify({ binding: door.binding, root, relay: object })
    const res = await door.stub(object).fetch('https://hub/subscribe', { headers })
    if (res.webSocket) return res.webSocket
    if (res.status !== 503) throw new Error(`the hub refused the subscription (${res.status}: ${await res.text()})`)
  }
  throw new Overloaded(`Every hub this listen could use holds its maximum of ${door.max} streams`, 'server', FULL_RETRY_SEC)
}

/**
 * One WebSocket to a hub or relay, re-opened with backoff if it is dropped (a deploy, a restart, an
 * eviction). After a reconnect, or a relay's word that it missed a publish, the listener gets a resync:
 * what was published meanwhile is gone.
 */
async function link(door: Door, doors: HubDoor[], tags: string[], listener: Listener, onError: (error: unknown) => void): Promise<HubLink> {
  let socket: WebSocket | undefined
  let closed = false
  let attempt = 0

  const connect = async () => {
    const ws = await open(door, doors, tags)
    ws.accept()
    ws.addEventListener('message', (e) => {
      const data = String(e.data)
      if (data === RESYNC_FRAME) return listener(RESYNC)
      // parseEvent takes nothing but an event's JSON: a binary frame (the hub sends none) is no event either.
      const event = parseEvent(data)
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
