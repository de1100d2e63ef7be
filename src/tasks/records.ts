import { bytesToBase64Url } from '../protocol/base64.js'
import { INTERNAL_ERROR, INVALID_PARAMS } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import { isTerminal, positive, type TaskRecord, type TaskStatus } from '../state/tasks.js'

/** 128 random bits, base64url: unguessable, and the only thing that names a task. */
export const newTaskId = (): string => bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16)))
/** What newTaskId makes: anything else is unknown without asking the store. */
export const TASK_ID = /^[A-Za-z0-9_-]{22}$/

/** The settings of one deployment's tasks. */
export interface TaskSettings {
  /** How long a task stays readable after it ends, and a parked one waits for input. */
  readonly ttlMs: number
  readonly pollIntervalMs: number
  /** How long a runner's claim lasts unless renewed; a runner that stops renewing has been lost. */
  readonly leaseMs: number
  /** What the records of one client, of everyone, and each one, may hold (none: unbounded, for tests of transitions). */
  readonly limits?: WorkLimits | undefined
}

/** The bounds of kept work: records live for their TTL and keep their arguments, whether anyone comes back or not. */
export interface WorkLimits {
  /** Live records of one client (its principal, or an anonymous client's address). */
  readonly perClient: number
  /** Live records in the store, whoever made them. */
  readonly total: number
  /** Characters of one record's JSON: its arguments, answers, memos and result together. */
  readonly recordBytes: number
}

/** The limits options of tasks() and resumable(), as both name them. */
export interface WorkLimitOptions {
  /**
   * Live records one client keeps at most, ended ones included until they expire (its principal; anonymous:
   * its address, see clientAddressHeader). Default 100; past it, 429 with Retry-After.
   */
  maxPerClient?: number | undefined
  /** Live records the store keeps at most, whoever made them (default 10,000); past it, 503 with Retry-After. */
  maxRecords?: number | undefined
  /**
   * Characters of JSON one record keeps at most: its arguments, answers, memos and result together (default
   * 1 Mi). Arguments or answers past it are refused (-32602); a result past it fails the work, saying so.
   */
  maxRecordBytes?: number | undefined
}

/** The limits `options` name, with their defaults; `name` prefixes what an invalid one is called. */
export function workLimits(options: WorkLimitOptions, name: string): WorkLimits {
  return {
    perClient: positive(options.maxPerClient, 100, `${name}.maxPerClient`),
    total: positive(options.maxRecords, 10_000, `${name}.maxRecords`),
    recordBytes: positive(options.maxRecordBytes, 1024 * 1024, `${name}.maxRecordBytes`),
  }
}

/** A record that would grow past `WorkLimits.recordBytes`: -32602 to a client that brought the bytes. */
export class RecordTooLarge extends McpError {
  constructor(what: string, size: number, max: number) {
    super(INVALID_PARAMS, `${what} too large to keep: ${size} characters of JSON, at most ${max}`)
    this.name = 'RecordTooLarge'
  }
}

/** Throws RecordTooLarge when `task` is over its bound; `what` says what made it so. */
export function checkSize(task: TaskRecord, settings: TaskSettings, what: string): void {
  const max = settings.limits?.recordBytes
  if (max === undefined) return
  const size = JSON.stringify(task).length
  if (size > max) throw new RecordTooLarge(what, size, max)
}

/**
 * The Task of the wire: ISO times, and the time from creation to when it may be forgotten. The extension
 * (2026-07-28) names the durations `ttlMs` and `pollIntervalMs`, the seed draft `ttl` and `pollInterval`.
 */
export function taskFields(task: TaskRecord, profile?: Profile): JsonObject {
  const seed = profile?.tasks === 'core'
  const out: JsonObject = {
    taskId: task.id,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.updatedAt).toISOString(),
    [seed ? 'ttl' : 'ttlMs']: Math.max(1, Math.ceil(task.expiresAt - task.createdAt)),
    [seed ? 'pollInterval' : 'pollIntervalMs']: task.pollIntervalMs,
  }
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage
  return out
}

/** The DetailedTask of `tasks/get` and `notifications/tasks`: what the status has to show with it. */
export function detailedTask(task: TaskRecord): JsonObject {
  const out = taskFields(task)
  if (task.status === 'input_required' && task.inputRequests) out.inputRequests = task.inputRequests
  if (task.status === 'completed' && task.result) out.result = task.result
  if (task.status === 'failed' && task.error) out.error = task.error
  return out
}

/** A new task, leased to `holder`, which is about to run it. */
export function newTask(settings: TaskSettings, owner: string, work: JsonObject, holder: string, seed?: { answers: JsonObject; memo: JsonObject }): TaskRecord {
  const now = Date.now()
  const until = now + settings.leaseMs
  return {
    id: newTaskId(), owner, version: 1, status: 'working', createdAt: now, updatedAt: now,
    expiresAt: until + settings.ttlMs, pollIntervalMs: settings.pollIntervalMs,
    work, answers: seed?.answers ?? {}, memo: seed?.memo ?? {}, lease: { holder, until },
  }
}

// The transitions: each returns the task as it should become, or undefined when it does not apply (the
// task is terminal, or someone else holds it). Compare-and-set (src/tasks/service.ts) makes them atomic.

export function renewLease(task: TaskRecord, holder: string, settings: TaskSettings): TaskRecord | undefined {
  if (task.status !== 'working' || task.lease?.holder !== holder) return undefined
  if (task.resumeBy !== undefined && task.resumeBy < Date.now()) return dropped(task, settings, NOT_RESUMED)
  const until = Date.now() + settings.leaseMs
  return { ...task, lease: { holder, until }, expiresAt: until + settings.ttlMs }
}

/** Ends a task (its runner's outcome, a cancel, a lost runner); a terminal task stays as it is. */
export function finish(task: TaskRecord, settings: TaskSettings, status: TaskStatus, outcome: { result?: JsonObject; error?: JsonObject; statusMessage?: string }, holder?: string): TaskRecord | undefined {
  if (isTerminal(task.status)) return undefined
  if (holder !== undefined && task.lease?.holder !== holder) return undefined
  const { inputRequests: _, lease: __, ...rest } = task
  const now = Date.now()
  return { ...rest, status, ...outcome, updatedAt: now, expiresAt: now + settings.ttlMs }
}

/** The runner stopped for input: the task waits, unleased, for `tasks/update` to bring the answers. */
export function park(task: TaskRecord, settings: TaskSettings, holder: string, requests: JsonObject, answers: JsonObject, memo: JsonObject): TaskRecord | undefined {
  if (task.status !== 'working' || task.lease?.holder !== holder) return undefined
  const { lease: _, ...rest } = task
  const now = Date.now()
  return { ...rest, status: 'input_required', inputRequests: requests, answers, memo, updatedAt: now, expiresAt: now + settings.ttlMs }
}

/**
 * Takes the answers to outstanding requests (others are ignored: unknown, or answered before). Once none
 * is outstanding, the task is working again, leased to `holder`, who is to run it.
 */
export function answer(task: TaskRecord, settings: TaskSettings, responses: JsonObject, holder: string): TaskRecord | undefined {
  if (task.status !== 'input_required' || !task.inputRequests) return undefined
  const outstanding = { ...task.inputRequests }
  const answers = { ...task.answers }
  let taken = 0
  for (const key of Object.keys(responses)) {
    if (!Object.hasOwn(outstanding, key)) continue
    answers[key] = responses[key]
    delete outstanding[key]
    taken++
  }
  if (taken === 0) return undefined
  const now = Date.now()
  if (Object.keys(outstanding).length > 0) return { ...task, inputRequests: outstanding, answers, updatedAt: now }
  const { inputRequests: _, ...rest } = task
  const until = now + settings.leaseMs
  return { ...rest, status: 'working', answers, updatedAt: now, lease: { holder, until }, expiresAt: until + settings.ttlMs }
}

/** A working task whose runner stopped renewing its lease has lost it: it fails rather than stay working. */
export function reapLost(task: TaskRecord, settings: TaskSettings): TaskRecord | undefined {
  if (task.status !== 'working' || !task.lease || task.lease.until > Date.now()) return undefined
  return finish(task, settings, 'failed', { error: { code: INTERNAL_ERROR, message: 'The task was lost: its runner stopped before finishing it (process ended or timed out)' } })
}

/**
 * A resumable request that ends without a response (nobody came back for it in time, or its client cancelled
 * it): cancelled, and its messages forgotten now. The record stays until its expiry, so that a late resume
 * learns what became of it.
 */
export function dropped(task: TaskRecord, settings: TaskSettings, reason: string): TaskRecord | undefined {
  const ended = finish(task, settings, 'cancelled', { statusMessage: reason })
  if (!ended) return undefined
  const { log: _, ...rest } = ended
  return rest
}

export const NOT_RESUMED = 'No client resumed the request in time'
