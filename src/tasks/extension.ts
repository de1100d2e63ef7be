import { INTERNAL_ERROR, TASKS } from '../protocol/constants.js'
import { invalidParams, McpError, methodNotFound } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { ClientCapabilities, InputRequest, Tool } from '../protocol/types.js'
import { withInput } from '../exchange/call.js'
import type { Call, Extension, ExtensionPlan, ListenField, MethodDescriptor, Runtime } from '../exchange/types.js'
import { validResponse } from '../exchange/input.js'
import { namedList } from '../exchange/listen.js'
import { callTool, checkArguments, invokeTool, listTools as coreListTools, type ToolCall } from '../exchange/methods/tools.js'
import { PROFILES, type Profile } from '../protocol/profiles.js'
import { memoryTaskStore, positive, type TaskStore } from '../state/tasks.js'
import { answer, detailedTask, finish, newTask, TASK_ID, taskFields, workLimits, type TaskSettings, type WorkLimitOptions } from './records.js'
import { durableWork, startTask, workOf } from './runner.js'
import { Runners } from './runners.js'
import { inputResponseTaskId, seedCancel, seedCapabilities, seedList, seedResult, seedStatus, seedTask } from './seed.js'
import { declared, runsAsTask } from './decide.js'
import { cancelTask, change, keepNew, newHolder, ownTask, readTask, taskTopic, type DurableWork, type TaskHost, type TaskService } from './service.js'

export interface TaskOptions extends WorkLimitOptions {
  /**
   * Where tasks live (default: the deployment's store, RuntimeOptions.store, else this process's memory).
   * Share one store between every instance.
   */
  store?: TaskStore | undefined
  /** How long a task stays readable after it ends, and a task waiting for input waits (default 1 hour). */
  ttlMs?: number | undefined
  /** How often clients are asked to poll `tasks/get` (default 1 s); faster polls are answered all the same. */
  pollIntervalMs?: number | undefined
  /**
   * How long a runner's claim on a task lasts unless renewed (default 30 s; renewed every third of it). A task
   * whose runner is lost (its process ended) fails when its lease runs out.
   */
  leaseMs?: number | undefined
}

const NEEDS_TASKS: ClientCapabilities = { extensions: { [TASKS]: {} } }
const hostOf = (call: Call): TaskHost => ({ env: call.transport.env, waitUntil: call.transport.waitUntil, deadline: call.transport.deadline })

/** The tasks extension of a runtime, with its durable work: what a store that runs tasks where they live calls. */
export interface TasksExtension extends Extension {
  readonly work: DurableWork
}

/** The tasks extension a runtime serves, if it serves one. */
export const tasksOf = (runtime: Runtime): TasksExtension | undefined =>
  runtime.extensions.find((e): e is TasksExtension => e.id === TASKS && 'work' in e)

/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663): `tools/call` of a tool with `task` set
 * answers a CreateTaskResult and the handler runs on in a task runner; `tasks/get`, `tasks/update` and
 * `tasks/cancel` read and steer it from any instance sharing the store; listen streams may follow tasks.
 * Requests at the seed draft get its core tasks from the same store (./seed.ts). Turned on with
 * `tasks()`, which builds one for each runtime it serves in.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, tasks } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'reports', version: '1.0.0' })
 *   .tool('build_report', { description: 'Takes a while', task: 'optional' }, async () => 'Report ready')
 *
 * // In this process's memory; give `store` (a RuntimeOptions or a TaskOptions one) to share tasks between instances.
 * export const handler = createFetchHandler(server, { extensions: [tasks({ ttlMs: 10 * 60_000 })] })
 * ```
 */
export function tasks(options: TaskOptions = {}): ExtensionPlan {
  const settings = taskSettings(options)
  return { id: TASKS, store: options.store, build: (store) => tasksExtension(settings, options.store ?? store ?? memoryTaskStore()) }
}

const taskSettings = (options: TaskOptions): TaskSettings => ({
  ttlMs: positive(options.ttlMs, 3_600_000, 'tasks.ttlMs', ' (ms)'),
  pollIntervalMs: positive(options.pollIntervalMs, 1000, 'tasks.pollIntervalMs', ' (ms)'),
  leaseMs: positive(options.leaseMs, 30_000, 'tasks.leaseMs', ' (ms)'),
  limits: workLimits(options, 'tasks'),
})

/** The tasks extension of one runtime, its tasks in `store`. */
function tasksExtension(settings: TaskSettings, store: TaskStore): TasksExtension {
  const runners = new Runners()
  const service: TaskService = { store, settings, running: runners }
  return {
    id: TASKS,
    store: service.store,
    work: durableWork(service),
    methods: [taskCall(service), listTools, ...taskMethods(service)],
    advertise: (caps, profile) => (profile.tasks === 'core' ? seedCapabilities(caps, service) : caps),
    listen: [taskIds],
    idle: () => runners.idle(),
    async close(runtime) {
      // Tasks still running here when the grace period is over end failed, with a reason, rather than as
      // whatever their aborted handlers make of it. Not left for another instance to take over: nothing runs
      // a working task whose runner is gone (a lapsed lease fails it, readTask), and a second run would repeat
      // the steps the first took, which `ctx.memo` keeps only when a task parks for input.
      // A store that fails now is reported, and the handler is aborted all the same.
      await Promise.all([...service.running].map(async ([id, running]) => {
        try {
          await change(runtime, service, id, (t) => finish(t, settings, 'failed', { error: { code: INTERNAL_ERROR, message: 'The server shut down while the task ran' } }))
        } catch (e) {
          runtime.report(e, { during: 'task shutdown', requestId: id })
        } finally {
          running.abort(new Error('The server is shutting down'))
        }
      }))
    },
  }
}

/** tools/call as the tasks extension serves it: a task tool asked for as one answers a CreateTaskResult. */
const taskCall = (service: TaskService): MethodDescriptor<ToolCall> => ({
  ...callTool,
  clientNeeds: (c, target) => {
    const core = callTool.clientNeeds?.(c, target)
    if (core || c.profile.tasks !== 'extension') return core
    return target.entry.task === 'required' && !declared(c) ? NEEDS_TASKS : undefined
  },
  async run(c, target) {
    const { entry, name, args } = target
    if (!runsAsTask(c, entry.task)) return callTool.run(c, target)
    const input = await checkArguments(entry, name, args)
    if (!input.ok) return input.result
    let seed: { answers: JsonObject; memo: JsonObject } | undefined
    if (entry.beforeTask) {
      // Input needed before the work is accepted is settled here, over multi-round-trip requests.
      const before = await withInput(c, async (ctx) => {
        const result = await invokeTool(c, entry, name, input.value, ctx, entry.beforeTask)
        if (!result.isError) seed = { answers: ctx.openedRound?.gathered ?? {}, memo: ctx.openedRound?.memo ?? {} }
        return result
      })
      if (!seed) return before
    }
    const work = workOf(c, name, args)
    const holder = newHolder()
    const task = newTask(service.settings, c.principal ?? '', work as unknown as JsonObject, holder, seed)
    // Durable before it is announced: an immediate tasks/get on any instance finds it.
    await keepNew(c, service, task, 'The task is')
    startTask(c.runtime, service, task, holder, hostOf(c))
    return c.profile.tasks === 'core' ? { task: seedTask(c, task) } : { ...taskFields(task), resultType: 'task' }
  },
})

/**
 * A task method: at 2026-07-28 only for requests that declared the extension, with Mcp-Name naming the
 * task; the seed draft's core tasks need neither. `seed` is its draft form, where it differs.
 */
const method = (name: string, run: MethodDescriptor['run'], seed?: MethodDescriptor['run'], era: 'extension' | 'core' | 'both' = 'both'): MethodDescriptor => {
  // A method of one form only does not exist in the other: no header or capability rule applies to it there.
  const has = (profile: Profile) => era === 'both' || profile.tasks === era
  return {
    method: name,
    eras: ['modern'],
    served: (runtime) => runtime.server.versions.some((v) => { const p = PROFILES.get(v); return p !== undefined && has(p) }),
    nameParam: (profile) => (has(profile) && profile.tasks === 'extension' ? 'taskId' : undefined),
    clientNeeds: (c) => (has(c.profile) && c.profile.tasks === 'extension' && !declared(c) ? NEEDS_TASKS : undefined),
    run: (c, target) => {
      if (!has(c.profile)) throw methodNotFound(name)
      return (c.profile.tasks === 'core' && seed ? seed : run)(c, target)
    },
  }
}

/** The task methods of both forms, over one runtime's tasks. */
function taskMethods(service: TaskService): MethodDescriptor[] {
  const { settings } = service
  const get = method('tasks/get', async (c) => detailedTask(await readTask(c, service)), async (c) => seedTask(c, await readTask(c, service)))

  const respond = async (c: Call, taskId: unknown) => {
    const task = await ownTask(service, { taskId }, c.principal)
    const responses = c.params.inputResponses
    if (!isObject(responses)) throw invalidParams('params.inputResponses must be an object keyed by input request')
    if (c.profile.tasks === 'core' && task.status !== 'input_required') throw invalidParams(`Task ${task.id} is not waiting for input (${task.status})`)
    // Only answers to outstanding requests are read, and must be well-formed; the rest is ignored.
    for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
      if (Object.hasOwn(responses, key) && !validResponse((request as InputRequest).method, responses[key])) {
        throw invalidParams(`inputResponses["${key}"] is not a valid ${(request as InputRequest).method} result`)
      }
    }
    const holder = newHolder()
    const { task: after, changed } = await change(c.runtime, service, task.id, (t) => answer(t, settings, responses, holder))
    if (changed && after?.status === 'working') startTask(c.runtime, service, after, holder, hostOf(c))
    return {}
  }
  const update = method('tasks/update', (c) => respond(c, c.params.taskId), undefined, 'extension')
  const inputResponse = method('tasks/input_response', (c) => respond(c, inputResponseTaskId(c.params)), undefined, 'core')
  const result = method('tasks/result', (c) => seedResult(c, service), undefined, 'core')
  const list = method('tasks/list', (c) => seedList(c, service), undefined, 'core')

  const cancel = method('tasks/cancel', async (c) => {
    await cancelTask(c, service, await ownTask(service, c.params, c.principal))
    return {}
  }, (c) => seedCancel(c, service))
  return [get, update, cancel, inputResponse, result, list]
}

// The seed draft shows on each tool whether it runs as a task.
const listTools: MethodDescriptor = {
  ...coreListTools,
  run: async (c) => {
    const page = (await coreListTools.run(c, undefined))!
    if (c.profile.tasks !== 'core') return page
    const tools = (page.tools as Tool[]).map((tool) => {
      const support = c.runtime.server.find('tool', tool.name, c)?.task
      return support ? { ...tool, execution: { taskSupport: support } } : tool
    })
    return { ...page, tools }
  },
}

/** The listen filter's `taskIds`: changes of the asker's own tasks. */
const taskIds: ListenField = {
  key: 'taskIds',
  honour(value, c) {
    if (value === undefined) return undefined
    if (c.profile.tasks === 'extension' && !declared(c)) {
      throw new McpError(c.profile.missingCapabilityCode, `notifications.taskIds needs the ${TASKS} extension declared`, { requiredCapabilities: NEEDS_TASKS })
    }
    const ids = namedList(value, c, 'taskIds', 'task id', (id) => TASK_ID.test(id))
    return { value: ids, topics: ids.map(taskTopic) }
  },
  notifications(event, _honoured, c) {
    // Changes carry their owner: another principal's task is never relayed, whatever ids were asked for.
    const data = event?.data
    if (!data || data.owner !== (c.principal ?? '') || !isObject(data.task)) return []
    if (c.profile.tasks === 'core') return [{ method: 'notifications/tasks/status', params: seedStatus(data.task) }]
    return [{ method: 'notifications/tasks', params: data.task }]
  },
}
