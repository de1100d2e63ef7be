import { bytesToBase64Url } from '../../protocol/base64.js'
import { INTERNAL_ERROR } from '../../protocol/constants.js'
import { McpError } from '../../protocol/errors.js'
import { isObject, type JsonObject } from '../../protocol/jsonrpc.js'
import type { InputRequest } from '../../protocol/types.js'
import { isResync, type Backplane, type ChangeEvent, type Resync } from '../../state/backplane.js'
import type { RecordLimits, TaskStore } from '../../state/tasks.js'
import type { Runtime } from '../../exchange/types.js'

/**
 * Requests from server to client in a 2025 session. The request goes out on the SSE stream of the client's
 * own request, held by one instance; the client answers with a POST that any instance may take. That
 * instance keeps the answer in the store for a minute and publishes it on the backplane under the request's
 * id, which the waiting instance subscribed to before it asked: no instance needs to know which holds the
 * stream, and a waiter whose backplane connection dropped (a resync) finds the answer in the store. Ids are
 * 128 random bits (unguessable, unique across instances), and an answer counts only from the session that
 * was asked.
 */
const topicOf = (id: string) => `reply:${id}`
const recordOf = (id: string) => `reply-${id}`
/** How long an answer stays in the store: a waiter that missed its publish looks there on its resync. */
const KEPT_MS = 60_000
const ID_PREFIX = 'mcp-edge-'

/** Whether a JSON-RPC id is one of ours: only those are routed. */
export const isAskId = (id: unknown): id is string => typeof id === 'string' && id.startsWith(ID_PREFIX) && id.length <= 64

export async function askClient(
  backplane: Backplane, store: TaskStore, session: string, emit: (request: JsonObject) => void, requests: readonly InputRequest[], signal: AbortSignal,
): Promise<unknown[]> {
  const ids = requests.map(() => ID_PREFIX + bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16))))
  const waiting = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>()
  const answers = ids.map((id) => new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject })))
  const settle = (id: string, data: JsonObject | undefined) => {
    const w = waiting.get(id)
    if (!w || !data || data.session !== session) return
    waiting.delete(id)
    if (isObject(data.error)) w.reject(new McpError(typeof data.error.code === 'number' ? data.error.code : INTERNAL_ERROR, `The client answered ${String(data.error.message ?? 'an error')}`))
    else w.resolve(data.result)
  }
  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
  }
  const subscription = await backplane.subscribe(ids.map(topicOf), (event: ChangeEvent | Resync) => {
    if (!isResync(event)) return settle(event.topic.slice(topicOf('').length), event.data)
    for (const id of waiting.keys()) void store.get(recordOf(id)).then((kept) => settle(id, kept?.result), (e: unknown) => failAll(e as Error))
  })
  const aborted = () => failAll(new McpError(INTERNAL_ERROR, 'The request ended before the client answered'))
  signal.addEventListener('abort', aborted, { once: true })
  try {
    if (signal.aborted) aborted()
    requests.forEach((request, i) => emit({ jsonrpc: '2.0', id: ids[i]!, method: request.method, params: request.params as JsonObject }))
    return await Promise.all(answers)
  } finally {
    signal.removeEventListener('abort', aborted)
    failAll(new McpError(INTERNAL_ERROR, 'not answered'))
    await subscription.close()
  }
}

/**
 * Hands a client's answer (a JSON-RPC response POSTed in its session) to whichever instance asked: kept in
 * the store within the client's share of records (an id is not checked against anything, so answers to
 * nothing count too), then published. Rejects when the store does (StoreFull past the limits).
 */
export async function deliverAnswer(runtime: Runtime, store: TaskStore, session: string, message: JsonObject, limits: RecordLimits): Promise<void> {
  const data: JsonObject = { session }
  if (isObject(message.error)) data.error = message.error
  else data.result = message.result ?? null
  const id = message.id as string
  const now = Date.now()
  await store.create({
    id: recordOf(id), owner: '', version: 1, status: 'completed', createdAt: now, updatedAt: now, expiresAt: now + KEPT_MS,
    pollIntervalMs: 0, work: { answer: true }, answers: {}, memo: {}, result: data,
  }, limits).catch((e: unknown) => {
    // The same answer twice keeps the first; a full share or store refuses it (the caller answers 429/503).
    if ((e as Error).name === 'StoreFull') throw e
  })
  // Kept, so not lost: a publish that fails is the operator's to see, and the waiter finds it on its resync.
  await runtime.backplane.publish({ topic: topicOf(id), data }).catch((e: unknown) => void runtime.report(e, { during: 'publish' }))
}
