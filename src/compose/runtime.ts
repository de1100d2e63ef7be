/**
 * The composition root: turns a deployment's options into the runtime the exchange core serves, building
 * each extension plan (tasks(), resumable()) for this runtime. The core (src/exchange/) meets extensions
 * only as Extensions, and nothing here names one, so a server bundles only those it imports;
 * test/architecture/layers.test.ts holds the layers to that.
 */
import { assembleRuntime } from '../exchange/assemble.js'
import type { CoreOptions, Extension, ExtensionPlan, Runtime } from '../exchange/types.js'
import { TASKS } from '../protocol/constants.js'
import type { McpServer } from '../server/server.js'
import type { TaskStore } from '../state/tasks.js'

/** The services of one deployment, given to the runtime entry (createFetchHandler, serve, createWorker, ...). */
export interface RuntimeOptions extends Omit<CoreOptions, 'extensions'> {
  /**
   * The extensions served, each turned on by its import: `tasks()` (the io.modelcontextprotocol/tasks
   * extension), `resumable()` (resumable requests), or an Extension of your own.
   */
  extensions?: readonly (Extension | ExtensionPlan)[] | undefined
  /**
   * Where the extensions that keep durable work (tasks, resumable requests) keep it, unless one names its
   * own: share one store (`redisTaskStore`) between the instances serving a server. createWorker gives its
   * task Durable Objects. Default: this process's memory, one store per extension.
   */
  store?: TaskStore | undefined
}

const isPlan = (extension: Extension | ExtensionPlan): extension is ExtensionPlan => 'build' in extension

/**
 * Refuses a server that has a task tool when tasks are not served: at start-up, rather than at the tool's
 * first call. Runtime entries that build their runtime late (createWorker, on the first request) call it early.
 */
export function assertTasksServed(server: McpServer, extensions: RuntimeOptions['extensions']): void {
  const tool = server.taskTool
  if (tool !== undefined && !extensions?.some((e) => e.id === TASKS)) {
    throw new Error(`tool "${tool}" is declared with \`task\`, but tasks are not served: add tasks() to the extensions (import { tasks } from 'mcp-edge')`)
  }
}

/**
 * The runtime of one server definition and the services it is given (RuntimeOptions): what the exchange
 * core answers requests with. Runtime entries make one each; a transport of your own makes it here.
 *
 * @example
 * ```ts
 * import { McpServer, tasks } from 'mcp-edge'
 * import { createRuntime } from 'mcp-edge/core'
 *
 * const server = new McpServer({ name: 'echo', version: '1.0.0' })
 *   .tool('echo', { description: 'Echoes' }, () => 'echo')
 *   .tool('report', { description: 'Takes a while', task: 'optional' }, async () => 'done')
 * // What createFetchHandler and serveStdio make: the definition with this deployment's services.
 * const runtime = createRuntime(server, { extensions: [tasks()], handlerTimeoutMs: 60_000 })
 * await runtime.notify.toolsChanged()
 * await runtime.close()
 * ```
 */
export function createRuntime(server: McpServer, options: RuntimeOptions = {}): Runtime {
  assertTasksServed(server, options.extensions)
  const extensions = (options.extensions ?? []).map((e) => (isPlan(e) ? e.build(options.store) : e))
  return assembleRuntime(server, { ...options, extensions })
}
