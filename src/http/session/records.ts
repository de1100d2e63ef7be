import { LOG_LEVELS, type LogLevel } from '../../protocol/constants.js'
import { isObject, type JsonObject } from '../../protocol/jsonrpc.js'
import type { RecordLimits, TaskRecord, TaskStore } from '../../state/tasks.js'
import type { SessionClaims } from './token.js'

/**
 * What a 2025 session remembers between requests, kept in the deployment's store (RuntimeOptions.store) as
 * a record of its own, so that any instance serving a request of the session reads the same: made on the
 * first change, forgotten when the session expires. A session that never changes anything has no record.
 */
export interface SessionState {
  /** Ended by DELETE: its id is refused from then on. */
  readonly ended: boolean
  readonly logLevel: LogLevel | undefined
  /** Resource URIs subscribed to, in order. */
  readonly subscriptions: readonly string[]
}

export const FRESH: SessionState = Object.freeze({ ended: false, logLevel: undefined, subscriptions: Object.freeze([]) as readonly string[] })

/** Where a session's record is kept: beside tasks, under a name no task id has (task ids are UUIDs). */
export const recordId = (key: string) => `session-${key}`

export function stateOf(record: TaskRecord | undefined): SessionState {
  const kept = record?.work.session
  if (!record || !isObject(kept)) return FRESH
  const level = LOG_LEVELS.includes(kept.level as LogLevel) ? (kept.level as LogLevel) : undefined
  const subscriptions = Array.isArray(kept.subscriptions) ? kept.subscriptions.filter((u): u is string => typeof u === 'string') : []
  return { ended: record.status === 'cancelled', logLevel: level, subscriptions }
}

/** A change of a session's state: a pure function, applied by compare-and-set (`change`). */
export type Transition = (state: SessionState) => SessionState

export const levelSet = (level: LogLevel): Transition => (state) => ({ ...state, logLevel: level })
export const ended: Transition = (state) => ({ ...state, ended: true })
export const subscribed = (uri: string, on: boolean): Transition => (state) => {
  const rest = state.subscriptions.filter((u) => u !== uri)
  return { ...state, subscriptions: on ? [...rest, uri] : rest }
}

/** Limits of what one session keeps: URIs subscribed, and their characters in all. */
export interface SessionLimits {
  readonly maxSubscriptions: number
  readonly maxSubscriptionChars: number
  /** Sessions with a record, per client and in all (RecordLimits). */
  readonly perClient: number
  readonly total: number
}

/** The session's record as last read or written by this request: what its next change starts from. */
export interface Known {
  record: TaskRecord | undefined
}

/** Compare-and-set attempts before a change is given up as contended (each loses only to another change). */
const ATTEMPTS = 8

/**
 * Applies a transition to the stored state and returns the state after: creates the record on the first
 * change, retries when another instance wrote in between. Throws RangeError past the session's limits.
 */
export async function change(
  store: TaskStore, claims: SessionClaims, transition: Transition, limits: SessionLimits, client: string | undefined, known?: Known,
): Promise<SessionState> {
  const id = recordId(claims.key)
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // The record as the request read it is tried first: a change that meets no other costs one write.
    const record = attempt === 0 && known ? known.record : await store.get(id)
    const before = stateOf(record)
    if (before.ended) return before
    const after = transition(before)
    checkLimits(after, limits)
    if (record) {
      const next = written(record, after, record.version + 1)
      if (!(await store.put(next))) continue
      if (known) known.record = next
      return after
    }
    const fresh = written(undefined, after, 1, claims)
    const share: RecordLimits = { client, perClient: limits.perClient, total: limits.total }
    try {
      await store.create(fresh, share)
      if (known) known.record = fresh
      return after
    } catch (e) {
      // Another instance made it first: change theirs. A full store is the caller's to answer.
      if ((e as Error).name === 'StoreFull') throw e
    }
  }
  throw new Error(`session ${claims.key}: ${ATTEMPTS} concurrent changes in a row`)
}

function checkLimits(state: SessionState, limits: SessionLimits): void {
  if (state.subscriptions.length > limits.maxSubscriptions) throw new RangeError(`a session subscribes to at most ${limits.maxSubscriptions} resources`)
  const chars = state.subscriptions.reduce((n, uri) => n + uri.length, 0)
  if (chars > limits.maxSubscriptionChars) throw new RangeError(`a session's subscriptions name at most ${limits.maxSubscriptionChars} characters of URIs`)
}

function written(record: TaskRecord | undefined, state: SessionState, version: number, claims?: SessionClaims): TaskRecord {
  const now = Date.now()
  const session: JsonObject = { subscriptions: [...state.subscriptions] }
  if (state.logLevel) session.level = state.logLevel
  const base: TaskRecord = record ?? {
    id: recordId(claims!.key), owner: claims!.principal ?? '', version, status: 'working', createdAt: now, updatedAt: now,
    expiresAt: claims!.expiresAt, pollIntervalMs: 0, work: {}, answers: {}, memo: {},
  }
  return { ...base, version, updatedAt: now, status: state.ended ? 'cancelled' : 'working', work: { session } }
}
