import { memoryTaskStore, positive, type TaskStore } from '../../state/tasks.js'
import { SessionEpoch } from './epoch.js'
import type { SessionLimits } from './records.js'
import { SessionRoutes } from './routes.js'
import type { SessionOptions } from './session.js'

/**
 * `sessions()`, given to a runtime entry as `sessions`: 2025 clients get sessions (HandlerOptions.sessions).
 * Its options are checked here, at start-up (each a positive integer, or its default).
 */
export interface SessionPlan {
  /** The sessions of one handler, kept in `store` (this process's memory without one). */
  build(store: TaskStore | undefined): SessionRoutes
}

/**
 * Turns on sessions for 2025 clients (`Mcp-Session-Id`), passed as a runtime entry's `sessions` option:
 * issued at `initialize`, verified by any instance that shares the requestState secret, ended by DELETE.
 * What a session remembers (its log level, its subscriptions, its end) is kept in the deployment's store; a
 * tool's `ctx.elicit` and `ctx.sample` reach the client mid-request, its answer coming back through the
 * backplane to whichever instance asked. Without it, 2025 clients are served every request on its own.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, sessions } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'notes', version: '1.0.0' })
 *   .tool('note', { description: 'Takes a note' }, () => 'noted')
 * const handler = createFetchHandler(server, { sessions: sessions({ ttlMs: 3600_000 }) })
 * ```
 */
export function sessions(options: SessionOptions = {}): SessionPlan {
  const ttlMs = positive(options.ttlMs, 24 * 3600_000, 'sessions.ttlMs', ' (ms)')
  const limits: SessionLimits = {
    maxSubscriptions: positive(options.maxSubscriptions, 1000, 'sessions.maxSubscriptions'),
    maxSubscriptionChars: 65_536,
    perClient: positive(options.maxPerClient, 100, 'sessions.maxPerClient'),
    total: positive(options.maxTotal, 100_000, 'sessions.maxTotal'),
  }
  return {
    build: (given) => {
      const store = given ?? memoryTaskStore()
      return new SessionRoutes({ store, epoch: new SessionEpoch(store), ttlMs, limits })
    },
  }
}
