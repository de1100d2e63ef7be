import { INTERNAL_ERROR } from '../protocol/constants.js'
import { invalidParams, McpError } from '../protocol/errors.js'
import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.js'
import type { Call } from '../exchange/types.js'
import { isResync, type ChangeEvent, type Resync } from '../state/backplane.js'
import { isTerminal, type TaskRecord } from '../state/tasks.js'
import { dropped } from '../tasks/records.js'
import { change, taskTopic, type TaskService } from '../tasks/service.js'
import { readLog } from './log.js'
import { left, waited } from './records.js'

/**
 * Writes a resumable request's messages after the first `from` to the call's stream, then ends with its
 * response: what the original request and each `requests/resume` answer. A client that leaves stops only
 * this stream: the request runs on, and waits `waitMs` for the client to come back (renewed while it is here).
 */
export async function follow(call: Call, service: TaskService, id: string, from: number, waitMs: number): Promise<JsonObject | undefined> {
  const { runtime, transport } = call
  let sent = from
  let stale = true
  let wake: (() => void) | undefined
  const poke = (event: ChangeEvent | Resync) => {
    const data = isResync(event) ? undefined : event.data
    // The next messages, as published with their place: written at once, without reading the record.
    if (!stale && data && data.seq === sent + 1 && Array.isArray(data.messages)) {
      for (const message of data.messages) transport.emit(message as unknown as JsonRpcNotification, String(++sent))
      return
    }
    stale = true
    wake?.()
  }
  const gone = () => wake?.()
  const subscription = await runtime.backplane.subscribe([taskTopic(id)], poke)
  transport.cancel.onAbort(gone)
  const renew = setInterval(() => {
    change(runtime, service, id, (t) => waited(t, waitMs)).catch((e) => runtime.report(e, { during: 'resumable renew', requestId: id }))
  }, Math.max(10, waitMs / 3))
  try {
    for (;;) {
      if (transport.cancel.aborted) return undefined
      if (!stale) {
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
        continue
      }
      stale = false
      const task = await service.store.get(id)
      if (!task) throw invalidParams('The request has expired: no client came back for it in time')
      // A request dropped (nobody came back in time, or its client cancelled it) has its messages forgotten.
      if (task.status === 'cancelled') return response(task)
      const start = sent
      const { messages, length } = await readLog(service.store, task, start)
      // Each message's event id is its place in the log: Last-Event-ID says how many a client has. Batches
      // published while the log was being read went out already (`poke`): those are not written twice.
      for (const message of messages.slice(sent - start)) transport.emit(message as unknown as JsonRpcNotification, String(++sent))
      if (isTerminal(task.status)) {
        sent = length + 1
        return response(task)
      }
    }
  } finally {
    clearInterval(renew)
    transport.cancel.offAbort(gone)
    await subscription.close().catch((e) => runtime.report(e, { during: 'resumable close', requestId: id }))
    // Where a request has no stream of its own to leave (stdio: no headers), its abort is a cancellation.
    const cancelled = transport.cancel.aborted && transport.versionHeader === null
    await change(runtime, service, id, (t) => (cancelled ? dropped(t, service.settings, 'Cancelled by the client') : left(t, sent, waitMs)))
      .catch((e) => runtime.report(e, { during: 'resumable leave', requestId: id }))
    if (cancelled) service.running.get(id)?.abort(new Error('cancelled by the client'))
  }
}

/** The response a finished request's record holds: its result, or its error thrown. */
function response(task: TaskRecord): JsonObject {
  if (task.status === 'completed' && task.result) return structuredClone(task.result)
  if (task.status === 'cancelled') throw invalidParams(`The request was cancelled: ${task.statusMessage ?? 'no reason given'}`)
  const error = task.error ?? { code: INTERNAL_ERROR, message: 'The request failed' }
  throw new McpError(error.code as number, String(error.message), error.data)
}
