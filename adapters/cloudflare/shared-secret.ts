import { sharedRead } from '../../src/core.js'
import type { SecretSource } from '../../src/index.js'
import type { McpHub } from './hub.js'

export interface DurableSharedSecretOptions {
  /** The McpHub namespace; a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<McpHub>
  /** The object that keeps the key (default `mcp-keys`). */
  name?: string | undefined
}

/** Where the object keeps the key. */
const SECRET_KEY = 'request-state-secret'

// Per isolate, by object: every handler of the isolate (the Worker's, the task objects') reads the key once,
// and callers that come while the first read is under way wait for it (for a while: see sharedRead).
const reads = new Map<string, () => Promise<string>>()

/**
 * The requestState secret of every isolate of a deployment, with nothing to configure: an McpHub object makes
 * 32 random bytes on first call and keeps them in its storage; each isolate reads them once. createWorker uses
 * it when no secret is given. Like any change of secret, deleting it makes the states in flight unreadable.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, type FetchHandler } from 'mcp-edge'
 * import { durableSharedSecret, type McpHub } from 'mcp-edge/cloudflare'
 *
 * export { McpHub } from 'mcp-edge/cloudflare'
 * interface Env { MCP_HUB: DurableObjectNamespace<McpHub> }
 *
 * const server = new McpServer({ name: 'news', version: '1.0.0' })
 *   .resource('news://latest', { name: 'latest' }, () => 'nothing yet')
 *
 * // What createWorker does with the MCP_HUB binding, in a fetch handler of your own.
 * let handler: FetchHandler | undefined
 * export default {
 *   fetch: (request, env) => (handler ??= createFetchHandler(server, {
 *     allowedHosts: '*',
 *     requestState: { secret: durableSharedSecret({ namespace: () => env.MCP_HUB }) },
 *   }))(request, { env }),
 * } satisfies ExportedHandler<Env>
 * ```
 */
export function durableSharedSecret(options: DurableSharedSecretOptions): SecretSource {
  return () => {
    const namespace = options.namespace()
    const id = namespace.idFromName(options.name ?? 'mcp-keys')
    let read = reads.get(id.toString())
    if (!read) reads.set(id.toString(), (read = sharedRead(async () => await namespace.get(id).requestStateSecret())))
    return read()
  }
}

/** Inside the object: the kept key, made on first call. Synchronous, so no other call comes between the read and the write. */
export function keptSecret(storage: DurableObjectStorage): string {
  const kept = storage.kv.get<string>(SECRET_KEY)
  if (typeof kept === 'string') return kept
  const made = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('')
  storage.kv.put(SECRET_KEY, made)
  return made
}
