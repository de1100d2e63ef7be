import type { JsonObject, JsonRpcId } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import { openListen, planListen } from '../server/listen.js'
import type { McpServer } from '../server/server.js'
import { SSE_HEADERS, sseStream, type KeepAlive } from './sse.js'

export interface ListenOptions {
  /** Longest a listen stream stays open before it is ended gracefully (default: no limit). */
  maxLifetimeMs?: number
}

export interface ListenContext extends ListenOptions {
  keepAlives: KeepAlive
  /** The open listen streams of one handler, so that shutdown can end each of them gracefully. */
  open: Set<() => void>
}

/**
 * `subscriptions/listen` over HTTP: an SSE stream whose first message is the acknowledgement, then one
 * notification per matching change. It ends gracefully (a SubscriptionsListenResult) at the lifetime limit
 * or on shutdown; a client that goes away frees its subscription at once.
 */
export async function listen(
  server: McpServer,
  request: { id: JsonRpcId; params: JsonObject; profile: Profile; signal: AbortSignal },
  context: ListenContext,
): Promise<Response> {
  const plan = planListen(server, request.id, request.params, request.profile)
  let unsubscribe: (() => void) | undefined
  let lifetime: ReturnType<typeof setTimeout> | undefined
  const release = () => {
    context.open.delete(end)
    request.signal.removeEventListener('abort', release)
    if (lifetime !== undefined) clearTimeout(lifetime)
    unsubscribe?.()
    stream.close()
  }
  const end = () => {
    if (plan.endResult && stream.open) stream.write({ jsonrpc: '2.0', id: request.id, result: plan.endResult })
    release()
  }
  const stream = sseStream(context.keepAlives, release)
  const response = new Response(stream.body, { status: 200, headers: SSE_HEADERS })

  context.open.add(end)
  request.signal.addEventListener('abort', release, { once: true })
  try {
    unsubscribe = await openListen(server, plan, (m) => stream.write(m))
  } catch (e) {
    release()
    throw e
  }
  // The client may have left while we subscribed.
  if (request.signal.aborted || !stream.open) release()
  else if (context.maxLifetimeMs !== undefined) lifetime = setTimeout(end, context.maxLifetimeMs)
  return response
}
