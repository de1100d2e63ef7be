import { bytesToBase64Url } from '../../protocol/base64.js'
import { INTERNAL_ERROR } from '../../protocol/constants.js'
import { McpError } from '../../protocol/errors.js'
import { isObject, type JsonObject } from '../../protocol/jsonrpc.js'
import type { InputRequest } from '../../protocol/types.js'
import { isResync, type Backplane, type ChangeEvent, type Resync } from '../../state/backplane.js'

/**
 * Requests from server to client in a 2025 session. The request goes out on the SSE stream of the client's
 * own request, held by one instance; the client answers with a POST that any instance may take. That
 * instance publishes the answer on the backplane under the request's id, which the waiting instance
 * subscribed to before it asked: no instance needs to know which holds the stream. Ids are 128 random bits
 * (unguessable, unique across instances), and an answer counts only from the session that was asked.
 */
const topicOf = (id: string) => `reply:${id}`
const ID_PREFIX = 'mcp-edge-'

/** Whether a JSON-RPC id is one of ours: only those are routed. */
export const isAskId = (id: unknown): id is string => typeof id === 'string' && id.startsWith(ID_PREFIX) && id.length <= 64

export async function askClient(
  backplane: Backplane, session: string, emit: (request: JsonObject) => void, requests: readonly InputRequest[], signal: AbortSignal,
): Promise<unknown[]> {
  const ids = requests.map(() => ID_PREFIX + bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16))))
  const waiting = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>()
  const answers = ids.map((id) => new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject })))
  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
  }
  const subscription = await backplane.subscribe(ids.map(topicOf), (event: ChangeEvent | Resync) => {
    if (isResync(event)) return
    const id = event.topic.slice('reply:'.length)
    const w = waiting.get(id)
    const data = event.data
    if (!w || !data || data.session !== session) return
    waiting.delete(id)
    if (isObject(data.error)) w.reject(new McpError(typeof data.error.code === 'number' ? data.error.code : INTERNAL_ERROR, `The client answered ${String(data.error.message ?? 'an error')}`))
    else w.resolve(data.result)
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

/** Hands a client's answer (a JSON-RPC response POSTed in its session) to whichever instance asked. */
export function deliverAnswer(backplane: Backplane, session: string, message: JsonObject): Promise<void> {
  const data: JsonObject = { session }
  if (isObject(message.error)) data.error = message.error
  else data.result = message.result ?? null
  return backplane.publish({ topic: topicOf(message.id as string), data })
}
