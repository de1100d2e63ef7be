import type { Runtime } from '../exchange/types.js'
import { RESUMABLE, TASKS } from '../protocol/constants.js'

/**
 * What a handler serves, and with which services, as its runtime resolved them: data for a start-up line
 * (serve prints one), so that a default that keeps things in one process is seen rather than found later.
 * A store or backplane is named by its `kind` (`memory`, `redis`, `durable-objects`; `custom` if it has none).
 */
export interface HandlerSummary {
  /** Protocol versions served (McpServer.versions). */
  readonly versions: readonly string[]
  readonly backplane: string
  /** Whether requests are authenticated (the `auth` option). */
  readonly auth: boolean
  /** Where tasks live; undefined when tasks are not served. */
  readonly tasks: string | undefined
  /** Where resumable requests are kept; undefined when they are off. */
  readonly resumable: string | undefined
  /** The health route's path (the `healthPath` option), if it has one. */
  readonly health: string | undefined
}

const kindOf = (port: { readonly kind?: string | undefined } | undefined) => port && (port.kind ?? 'custom')
const storeOf = (runtime: Runtime, id: string) => runtime.extensions.find((e) => e.id === id)?.store

export const summarize = (runtime: Runtime, auth: boolean, health: string | undefined): HandlerSummary => ({
  versions: runtime.server.versions,
  backplane: kindOf(runtime.backplane)!,
  auth,
  tasks: kindOf(storeOf(runtime, TASKS)),
  resumable: kindOf(storeOf(runtime, RESUMABLE)),
  health,
})
