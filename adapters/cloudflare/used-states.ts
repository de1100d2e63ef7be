import { shardOf } from '../../src/core.js'
import type { UsedStates } from '../../src/index.js'
import type { McpHub } from './hub.js'

export interface DurableUsedStatesOptions {
  /** The McpHub namespace; a function so that it can be looked up once bindings exist. */
  namespace: () => DurableObjectNamespace<McpHub>
  /** Objects to spread the ids over (default 4). Every Worker of one server must use the same number. */
  shards?: number | undefined
  /** Name prefix of the objects (default `mcp-used-states-`). */
  name?: string | undefined
}

/**
 * Single-use requestStates across every isolate of a deployment: each id is claimed in the McpHub object of
 * its shard, which serves one call at a time, so two isolates given the same state at once serve it once.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, type FetchHandler } from 'mcp-edge'
 * import { durableUsedStates, type McpHub } from 'mcp-edge/cloudflare'
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
 *     requestState: { singleUse: durableUsedStates({ namespace: () => env.MCP_HUB }) },
 *   }))(request, { env }),
 * } satisfies ExportedHandler<Env>
 * ```
 */
export function durableUsedStates(options: DurableUsedStatesOptions): UsedStates {
  const shards = options.shards ?? 4
  const name = options.name ?? 'mcp-used-states-'
  return {
    async claim(id, untilMs) {
      const namespace = options.namespace()
      return await namespace.get(namespace.idFromName(`${name}${shardOf(id, shards)}`)).claimState(id, untilMs)
    },
  }
}

const TABLE = 'CREATE TABLE IF NOT EXISTS used_states (id TEXT PRIMARY KEY, until INTEGER NOT NULL); CREATE INDEX IF NOT EXISTS used_states_until ON used_states (until)'

/**
 * Inside the object: true the first time `id` is claimed. The check and the write run with no await between
 * them, so no other claim comes between; the alarm is set for the earliest expiry, to sweep.
 */
export async function claimIn(storage: DurableObjectStorage, id: string, untilMs: number): Promise<boolean> {
  storage.sql.exec(TABLE)
  const now = Date.now()
  const [row] = storage.sql.exec<{ until: number }>('SELECT until FROM used_states WHERE id = ?', id).toArray()
  if (row && row.until > now) return false
  storage.sql.exec('INSERT OR REPLACE INTO used_states (id, until) VALUES (?, ?)', id, untilMs)
  const alarm = await storage.getAlarm()
  if (alarm === null || untilMs < alarm) await storage.setAlarm(untilMs)
  return true
}

/** The alarm: forgets expired claims (their states are refused as expired anyway) and waits for the next expiry. */
export async function sweepUsedStates(storage: DurableObjectStorage): Promise<void> {
  storage.sql.exec(TABLE)
  storage.sql.exec('DELETE FROM used_states WHERE until <= ?', Date.now())
  const [next] = storage.sql.exec<{ until: number | null }>('SELECT min(until) AS until FROM used_states').toArray()
  if (next?.until != null) await storage.setAlarm(next.until)
}
