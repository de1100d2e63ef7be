/**
 * The composition root: the one place that knows the extensions by name and turns a deployment's options
 * into the extensions the exchange core serves. The core (src/exchange/) meets tasks and resumable requests
 * only as Extensions; test/architecture/layers.test.ts holds it to that.
 */
import { assembleRuntime } from '../exchange/assemble.js'
import type { CoreOptions, Runtime } from '../exchange/types.js'
import { resumableRequests, type ResumableOptions } from '../resumable/extension.js'
import type { McpServer } from '../server/server.js'
import { tasksExtension, type TaskOptions } from '../tasks/extension.js'
import { TASKS } from '../tasks/records.js'

/** The services of one deployment, given to the runtime entry (createFetchHandler, serve, createWorker, ...). */
export interface RuntimeOptions extends CoreOptions {
  /**
   * Tasks (the io.modelcontextprotocol/tasks extension): where they live and for how long. Served when
   * given, or when some tool has `task` set (then in this process's memory).
   */
  tasks?: TaskOptions | undefined
  /**
   * Resumable requests as the seed draft proposed them (src/resumable/): off by default; `true`, or its
   * options, serves them to clients that declare `resumableRequests`. Kept in the tasks store when one is given.
   */
  resumable?: boolean | ResumableOptions | undefined
}

/**
 * The runtime of one server definition and the services it is given (RuntimeOptions): what the exchange
 * core answers requests with. Runtime entries make one each; a transport of your own makes it here.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createRuntime } from 'mcp-edge/core'
 *
 * const server = new McpServer({ name: 'echo', version: '1.0.0' }).tool('echo', { description: 'Echoes' }, () => 'echo')
 * // What createFetchHandler and serveStdio make: the definition with this deployment's services.
 * const runtime = createRuntime(server, { handlerTimeoutMs: 60_000, onError: (error, where) => console.error(where, error) })
 * await runtime.notify.toolsChanged()
 * await runtime.close()
 * ```
 */
export function createRuntime(server: McpServer, options: RuntimeOptions = {}): Runtime {
  const extensions = [...(options.extensions ?? [])]
  if ((options.tasks || server.usesTasks) && !extensions.some((e) => e.id === TASKS)) extensions.push(tasksExtension(options.tasks))
  if (options.resumable) {
    const { store = options.tasks?.store, ...rest } = options.resumable === true ? {} : options.resumable
    extensions.push(resumableRequests({ ...rest, store }))
  }
  return assembleRuntime(server, { ...options, extensions })
}
