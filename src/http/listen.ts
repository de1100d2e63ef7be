import type { JsonObject } from '../protocol/jsonrpc.js'
import { planListen } from '../server/listen.js'
import type { McpServer } from '../server/server.js'
import type { Listener, Subscription } from '../state/backplane.js'
import { SSE_HEADERS, sseStream, type KeepAlive } from './sse.js'

export interface ListenOptions {
  /** Longest a listen stream stays open before it is ended gracefully (default: no limit). */
  maxLifetimeMs?: number
}

/** The open listen streams of one handler, so that shutdown can end each of them gracefully. */
export type OpenStreams = Set<() => void>

/**
 * `subscriptions/listen` over HTTP: an SSE stream whose first message is the acknowledgement, then one
 * notification per matching change. It ends gracefully (a SubscriptionsListenResult) at the lifetime limit
 * or on shutdown; a client that goes away frees its subscription at once.
 */
export async function listen(
  server: McpServer,
  id: string | number,
  params: JsonObject,
  profile: Parameters<typeof planListen>[3],
  signal: AbortSignal,
  keepAlives: KeepAlive,
  open: OpenStreams,
  options: ListenOptions,
): Promise<Response> {
  const plan = planListen(server, id, params, profile)
  let subscription: Subscription | undefined
  let lifetime: ReturnType<typeof setTimeout> | undefined
  let acked = false
  const early: Parameters<Listener>[0][] = []

  const release = () => {
    open.delete(end)
    signal.removeEventListener('abort', release)
    if (lifetime !== undefined) clearTimeout(lifetime)
    void subscription?.close()
    stream.close()
  }
  const end = () => {
    if (plan.endResult && stream.open) stream.write({ jsonrpc: '2.0', id, result: plan.endResult })
    release()
  }
  const stream = sseStream(keepAlives, release)
  const onEvent: Listener = (event) => {
    if (!acked) return void early.push(event)
    for (const n of plan.notificationsFor(event)) stream.write(n)
  }

  open.add(end)
  signal.addEventListener('abort', release, { once: true })
  // Subscribe before acknowledging, holding back what arrives meanwhile: the ack must be first, and
  // a change made right after the client saw the ack must not be lost.
  try {
    subscription = await server.backplane.subscribe(plan.topics, onEvent)
  } catch (e) {
    release()
    throw e
  }
  if (signal.aborted || !stream.open) release()
  stream.write(plan.ack)
  acked = true
  for (const event of early.splice(0)) onEvent(event)
  if (options.maxLifetimeMs !== undefined) lifetime = setTimeout(end, options.maxLifetimeMs)
  return new Response(stream.body, { status: 200, headers: SSE_HEADERS })
}
