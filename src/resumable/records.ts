import type { JsonObject } from '../protocol/jsonrpc.js'
import { isTerminal, type TaskRecord } from '../state/tasks.js'

// Transitions of a resumable request's record, applied by compare-and-set (src/tasks/service.ts `change`).

/** Keeps messages the handler emitted, after those before them (where the store keeps no log beside the record). */
export function logged(task: TaskRecord, messages: readonly JsonObject[]): TaskRecord | undefined {
  if (isTerminal(task.status)) return undefined
  return { ...task, log: [...(task.log ?? []), ...messages], updatedAt: Date.now() }
}

/** A client asked about it or came back: it may be left alone `waitMs` from now, and stays readable as long. */
export function waited(task: TaskRecord, waitMs: number): TaskRecord {
  const resumeBy = Date.now() + waitMs
  return { ...task, resumeBy, expiresAt: Math.max(task.expiresAt, resumeBy) }
}

/** A client's stream ended (it left, or got the response) after `sent` messages were written to it. */
export function left(task: TaskRecord, sent: number, waitMs: number): TaskRecord {
  return { ...waited(task, waitMs), sent: Math.max(task.sent ?? 0, sent) }
}

/** The seed's status of a request: processing until it has a response; `failed` when that is an error. */
export function requestStatus(task: TaskRecord): 'processing' | 'completed' | 'failed' {
  if (!isTerminal(task.status)) return 'processing'
  return task.status === 'completed' ? 'completed' : 'failed'
}
