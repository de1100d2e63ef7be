/**
 * The relay tree of one hub shard, as each of its objects keeps it (hub.ts calls these). The shard's hub is
 * the root: it keeps the relays that hold sockets, and numbers its publishes. A relay keeps the root's
 * registration and the number of the last publish it passed on, so that one it missed (a call that failed,
 * a root evicted half-way through its relays) shows as a gap at the next, and its sockets get a resync
 * rather than a silent loss. Everything lives in storage: objects hibernate between events.
 */

/** The frame a relay sends its sockets in place of publishes it missed: their listeners get a resync. */
export const RESYNC_FRAME = 'resync'
/** The upgrade header that makes the hub a relay: JSON {binding, root, relay} (see TreePlace). */
export const TREE_HEADER = 'x-mcp-tree'

/** Where a relay stands: the namespace binding both objects live in, the root's name and its own. */
export interface TreePlace {
  readonly binding: string
  readonly root: string
  readonly relay: string
}

/** What a relay answers a publish: the sockets it sent to, and whether it holds none and left the tree. */
export interface Relayed {
  readonly sent: number
  readonly left?: true | undefined
}

const SEQ = 'tree:seq'
const BINDING = 'tree:binding'
const RELAY = 'tree:relay:'
const JOINED = 'tree:joined'
const LAST = 'tree:last'

export function parsePlace(header: string): TreePlace | undefined {
  try {
    const place: unknown = JSON.parse(header)
    if (typeof place !== 'object' || place === null) return undefined
    const { binding, root, relay } = place as Record<string, unknown>
    const named = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256
    return named(binding) && named(root) && named(relay) ? { binding, root, relay } : undefined
  } catch {
    return undefined
  }
}

// The root's side.

/** Takes `relay` in (again, under a new registration id); returns the number of the last publish, which it did not get. */
export function addRelay(storage: DurableObjectStorage, binding: string, relay: string, id: string): number {
  storage.kv.put(BINDING, binding)
  storage.kv.put(`${RELAY}${relay}`, id)
  return storage.kv.get<number>(SEQ) ?? 0
}

/**
 * Numbers a publish and lists the relays it goes to, with the registration each was under. Synchronous, so
 * a relay joins either before (and gets this publish) or after (and starts past it).
 */
export function nextPublish(storage: DurableObjectStorage): { seq: number; binding: string; relays: [string, string][] } | undefined {
  const relays = [...storage.kv.list<string>({ prefix: RELAY })].map(([key, id]): [string, string] => [key.slice(RELAY.length), id])
  if (relays.length === 0) return undefined
  const seq = (storage.kv.get<number>(SEQ) ?? 0) + 1
  storage.kv.put(SEQ, seq)
  // Put with the first relay (addRelay).
  return { seq, binding: storage.kv.get<string>(BINDING)!, relays }
}

/** Drops a relay that left, unless it joined again since (a new id) while its answer was on the way. */
export function dropRelay(storage: DurableObjectStorage, relay: string, id: string): void {
  if (storage.kv.get(`${RELAY}${relay}`) === id) storage.kv.delete(`${RELAY}${relay}`)
}

// A relay's side.

export const isJoined = (storage: DurableObjectStorage): boolean => storage.kv.get(JOINED) !== undefined

/** The number of the last publish this relay passed on, as kept (0: none since it joined). */
export const lastPassed = (storage: DurableObjectStorage): number => storage.kv.get<number>(LAST) ?? 0

/**
 * Keeps `seq` as passed on, unless a later number is kept already. Written once the publish is sent: a relay
 * reset before that shows the publish as missed at the next one, and its sockets get a resync.
 */
export function passed(storage: DurableObjectStorage, seq: number): void {
  if (seq > lastPassed(storage)) storage.kv.put(LAST, seq)
}

/**
 * `last` is the root's number when it took the relay in; a publish numbered after it may have come first,
 * while the answer was on the way (a relay left has no number of its own).
 */
export function joined(storage: DurableObjectStorage, last: number): void {
  storage.kv.put(JOINED, true)
  passed(storage, last)
}

export function leave(storage: DurableObjectStorage): void {
  storage.kv.delete(JOINED)
  storage.kv.delete(LAST)
}
