import { DurableObject } from 'cloudflare:workers'

import { ALL_TOPICS, MAX_TAGS, TOPICS_HEADER } from './backplane.js'
import { keptSecret } from './shared-secret.js'
import { claimIn, sweepUsedStates } from './used-states.js'

/**
 * The fan-out hub: Workers holding listen streams connect to it with a WebSocket tagged by the topics they
 * watch, or by ALL_TOPICS; a publish broadcasts to the sockets carrying the event's tag and to those. It
 * accepts sockets through the hibernation API and keeps nothing in fields, so it can be evicted between
 * events without losing anyone: the sockets, and their tags, survive hibernation. Objects of other names keep what every isolate of a
 * deployment must share without a binding of its own: the requestState secret and single-use claims.
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
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return new Response('The hub only accepts WebSocket connections', { status: 426 })
    }
    const tags = parseTags(request.headers.get(TOPICS_HEADER))
    if (!tags) return new Response(`${TOPICS_HEADER} must be a JSON array of 1 to ${MAX_TAGS} tags, or of ${ALL_TOPICS} alone`, { status: 400 })
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server, tags)
    return new Response(null, { status: 101, webSocket: client })
  }

  /** @internal Sends `message` to every socket tagged `tag` or ALL_TOPICS; returns how many there were. */
  async publish(tag: string, message: string): Promise<number> {
    // Disjoint lists: a socket tagged ALL_TOPICS has no other tag (parseTags).
    const sockets = tag === ALL_TOPICS ? this.ctx.getWebSockets(ALL_TOPICS) : [...this.ctx.getWebSockets(tag), ...this.ctx.getWebSockets(ALL_TOPICS)]
    let sent = 0
    for (const ws of sockets) {
      try {
        ws.send(message)
        sent++
      } catch {
        // closing already; webSocketClose cleans up
      }
    }
    return sent
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
    // 1005 and 1006 are reserved for "no status" and "abnormal": they cannot be sent back.
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'bye')
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    try {
      ws.close(1011, 'error')
    } catch {
      // already closed
    }
  }
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
