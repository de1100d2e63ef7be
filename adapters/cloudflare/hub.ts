import { DurableObject } from 'cloudflare:workers'

import { ALL_TOPICS, MAX_SOCKETS_HEADER, MAX_TAGS, SOCKET_LIMIT, TOPICS_HEADER } from './backplane.js'
import {
  addRelay, dropRelay, isJoined, joined, lastPassed, leave, nextPublish, parsePlace, passed, RESYNC_FRAME, TREE_HEADER, type Relayed, type TreePlace,
} from './hub-tree.js'
import { keptSecret } from './shared-secret.js'
import { claimIn, sweepUsedStates } from './used-states.js'

/**
 * The fan-out hub: Workers holding listen streams connect to it with a WebSocket tagged by the topics they
 * watch, or by ALL_TOPICS; a publish broadcasts to the sockets carrying the event's tag and to those. It
 * accepts sockets through the hibernation API and keeps nothing in fields but what it can count again, so it
 * can be evicted between events without losing anyone: the sockets, and their tags, survive hibernation.
 * With relays (hubBackplane's `relays`), a shard's hub is the root of a tree: streams connect to relay hubs,
 * and the root passes each publish on to them (hub-tree.ts). Objects of other names keep what every isolate
 * of a deployment must share without a binding of its own: the requestState secret and single-use claims.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createWorker } from 'mcp-edge/cloudflare'
 *
 * const server = new McpServer({ name: 'news', version: '1.0.0' })
 *   .resource('news://latest', { name: 'latest' }, () => 'nothing yet')
 *
 * // wrangler.toml: a durable_objects binding MCP_HUB of class McpHub, and a new_sqlite_classes migration for it.
 * export { McpHub } from 'mcp-edge/cloudflare'
 * export default createWorker(server)
 * ```
 */
export class McpHub extends DurableObject {
  /** Sockets held: counted once per wake (fields do not survive hibernation), then kept up to date. */
  #held: number | undefined
  /** Upgrades under way on a relay: it does not leave the tree while one may still bring a socket. */
  #arriving = 0
  /** A relay's joining of its root, while under way: upgrades that come meanwhile wait for it. */
  #joining: Promise<void> | undefined
  /**
   * On a relay, the number of the last publish it passed on or is about to (its sends wait on a timer, and
   * the number is stored after them); unset after a wake or once it left the tree, when the stored one is
   * read (hub-tree.ts).
   */
  #last: number | undefined
  /**
   * On a root, one stub per relay: calls on one stub arrive in the order they were made (E-order), so each
   * relay gets the publishes in order. A stub that failed is broken for good, and made again.
   */
  readonly #stubs = new Map<string, DurableObjectStub<McpHub>>()

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return new Response('The hub only accepts WebSocket connections', { status: 426 })
    }
    const tags = parseTags(request.headers.get(TOPICS_HEADER))
    if (!tags) return new Response(`${TOPICS_HEADER} must be a JSON array of 1 to ${MAX_TAGS} tags, or of ${ALL_TOPICS} alone`, { status: 400 })
    const max = parseMax(request.headers.get(MAX_SOCKETS_HEADER))
    if (max === undefined) return new Response(`${MAX_SOCKETS_HEADER} must be a whole number from 1 to ${SOCKET_LIMIT}`, { status: 400 })
    const tree = request.headers.get(TREE_HEADER)
    const place = tree === null ? undefined : parsePlace(tree)
    if (tree !== null && !place) return new Response(`${TREE_HEADER} must be a JSON object of binding, root and relay names`, { status: 400 })
    this.#arriving++
    try {
      if (place) await this.#join(place)
      // Counted after the join, which may have let other upgrades in.
      if (this.#count() >= max) return new Response(`This hub holds its maximum of ${max} sockets`, { status: 503 })
      const { 0: client, 1: server } = new WebSocketPair()
      this.ctx.acceptWebSocket(server, tags)
      this.#held = this.#count() + 1
      return new Response(null, { status: 101, webSocket: client })
    } catch (e) {
      return new Response(`The relay could not join its root: ${e instanceof Error ? e.message : String(e)}`, { status: 502 })
    } finally {
      this.#arriving--
    }
  }

  /**
   * @internal Sends `message` to every socket tagged `tag` or ALL_TOPICS, here and on every relay of this
   * root (one call each, whatever their sockets); returns how many sockets it sends to (a relay's send once
   * it has answered).
   */
  async publish(tag: string, message: string): Promise<number> {
    const sent = this.#broadcast(tag, message)
    const tree = nextPublish(this.ctx.storage)
    if (!tree) return sent
    const relayed = await Promise.all(tree.relays.map(async ([relay, id]) => {
      // A stub broken by the relay's restart fails at once: try once more on a new one. A repeat is harmless
      // (the relay drops a number it is past); a second failure shows as a gap at the relay's next publish.
      for (let attempt = 1; ; attempt++) {
        try {
          const answer = await this.#stub(tree.binding, relay).relay(tag, message, tree.seq)
          if (answer.left) dropRelay(this.ctx.storage, relay, id)
          return answer.sent
        } catch (e) {
          this.#stubs.delete(relay)
          if (attempt === 2) {
            console.error(`mcp-edge: relay ${relay} missed publish ${tree.seq}:`, e)
            return 0
          }
        }
      }
    }))
    return relayed.reduce((a, b) => a + b, sent)
  }

  /** @internal A relay's side of its root's publish number `seq` (hub-tree.ts). */
  relay(tag: string, message: string, seq: number): Relayed {
    const storage = this.ctx.storage
    // An upgrade waiting for the join brings a socket: leaving now would let the root drop the new registration.
    if (this.#count() === 0 && this.#arriving === 0) {
      leave(storage)
      this.#last = undefined
      return { sent: 0, left: true }
    }
    const last = this.#last ?? lastPassed(storage)
    if (seq <= last) return { sent: 0 }
    this.#last = seq
    // After a gap, every socket gets a resync first. Who gets what is settled now, with the number.
    const resync = seq === last + 1 ? [] : this.ctx.getWebSockets()
    const sockets = this.#sockets(tag)
    // Answered before sending, and with nothing written (a write would hold the answer until it is stored):
    // the root's call lasts one hop, not this relay's broadcast to its thousands of sockets, so a root that
    // may hold only a few calls open at once still reaches every relay within a few hops (BENCHMARKS.md,
    // the 1,000,000-stream model). Timers keep their order, so publishes do too.
    setTimeout(() => {
      for (const ws of resync) send(ws, RESYNC_FRAME)
      for (const ws of sockets) send(ws, message)
      passed(storage, seq)
    }, 0)
    return { sent: sockets.length }
  }

  /** @internal A root takes `relay` in; the number of the last publish, which the relay did not get. */
  join(binding: string, relay: string, id: string): number {
    return addRelay(this.ctx.storage, binding, relay, id)
  }

  #broadcast(tag: string, message: string): number {
    let sent = 0
    for (const ws of this.#sockets(tag)) if (send(ws, message)) sent++
    return sent
  }

  /** The sockets a publish tagged `tag` goes to. */
  #sockets(tag: string): WebSocket[] {
    // Disjoint lists: a socket tagged ALL_TOPICS has no other tag (parseTags).
    return tag === ALL_TOPICS ? this.ctx.getWebSockets(ALL_TOPICS) : [...this.ctx.getWebSockets(tag), ...this.ctx.getWebSockets(ALL_TOPICS)]
  }

  #count(): number {
    return (this.#held ??= this.ctx.getWebSockets().length)
  }

  #stub(binding: string, relay: string): DurableObjectStub<McpHub> {
    let stub = this.#stubs.get(relay)
    if (!stub) this.#stubs.set(relay, (stub = this.#object(binding, relay)))
    return stub
  }

  /** Another hub of this namespace, by name, through the binding the tree names. */
  #object(binding: string, name: string): DurableObjectStub<McpHub> {
    const namespace = (this.env as unknown as Record<string, unknown>)[binding] as DurableObjectNamespace<McpHub> | undefined
    if (!namespace) throw new Error(`the hub has no binding ${binding}`)
    return namespace.get(namespace.idFromName(name))
  }

  async #join(place: TreePlace): Promise<void> {
    if (isJoined(this.ctx.storage)) return
    this.#joining ??= (async () => {
      const last = await this.#object(place.binding, place.root).join(place.binding, place.relay, crypto.randomUUID())
      joined(this.ctx.storage, last)
    })().finally(() => {
      this.#joining = undefined
    })
    await this.#joining
  }

  /** @internal The deployment's requestState secret, made on first call (in the object `mcp-keys`: durableSharedSecret). */
  requestStateSecret(): string {
    return keptSecret(this.ctx.storage)
  }

  /** @internal True the first time a single-use requestState's id is claimed (in `mcp-used-states-N`: durableUsedStates). */
  claimState(id: string, untilMs: number): Promise<boolean> {
    return claimIn(this.ctx.storage, id, untilMs)
  }

  /** Set only by claimState: sweeps the claims that have expired. */
  override async alarm(): Promise<void> {
    await sweepUsedStates(this.ctx.storage)
  }

  override async webSocketMessage(): Promise<void> {
    // Subscribers only listen.
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    if (this.#held !== undefined) this.#held--
    // 1005 and 1006 are reserved for "no status" and "abnormal": they cannot be sent back.
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'bye')
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    // Whether a close follows is not said: count again at the next upgrade.
    this.#held = undefined
    try {
      ws.close(1011, 'error')
    } catch {
      // already closed
    }
  }
}

/** Sends, unless the socket is closing already (webSocketClose cleans up); true if it went. */
function send(ws: WebSocket, message: string): boolean {
  try {
    ws.send(message)
    return true
  } catch {
    return false
  }
}

function parseMax(header: string | null): number | undefined {
  if (header === null) return SOCKET_LIMIT
  const max = /^\d{1,6}$/.test(header) ? Number(header) : 0
  return max >= 1 && max <= SOCKET_LIMIT ? max : undefined
}

function parseTags(header: string | null): string[] | undefined {
  if (!header) return undefined
  try {
    const tags: unknown = JSON.parse(header)
    if (Array.isArray(tags) && tags.length > 0 && tags.length <= MAX_TAGS && tags.every((t) => typeof t === 'string' && t.length > 0 && t.length <= 256)
      && (tags.length === 1 || !tags.includes(ALL_TOPICS))) {
      return tags
    }
  } catch {
    // fall through
  }
  return undefined
}
