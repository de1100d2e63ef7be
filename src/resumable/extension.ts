import { requireString } from '../exchange/call.js'
import type { Call, Extension, ExtensionPlan, MethodDescriptor, Runtime } from '../exchange/types.js'
import { openRound } from '../exchange/input.js'
import { checkArguments, type ToolCall } from '../exchange/methods/tools.js'
import { RESUMABLE } from '../protocol/constants.js'
import { invalidParams } from '../protocol/errors.js'
import { isObject, notification, type JsonObject, type JsonRpcId } from '../protocol/jsonrpc.js'
import { memoryTaskStore, type TaskStore } from '../state/tasks.js'
import { newTask, workLimits, type WorkLimitOptions, type WorkLimits } from '../tasks/records.js'
import { durableWork, startTask, workOf, type Work } from '../tasks/runner.js'
import { runsAsTask } from '../tasks/decide.js'
import { change, keepNew, newHolder, taskTopic, type DurableWork, type TaskService } from '../tasks/service.js'
import { follow } from './follow.js'
import { keep, readLog } from './log.js'
import { requestStatus, waited } from './records.js'
import { openToken, RESUME, sealToken } from './token.js'

export interface ResumableOptions extends WorkLimitOptions {
  /**
   * Where resumable requests and their messages are kept (default: the deployment's store,
   * RuntimeOptions.store, else this process's memory). Share one store (Redis, Durable Objects) between
   * instances, so that a request resumes anywhere.
   */
  store?: TaskStore | undefined
  /** How long a request waits for its client to come back before it is cancelled and forgotten (default 60 s). */
  maxWaitMs?: number | undefined
  /** How long a client should wait before it comes back (a hint; default 0). */
  minWaitMs?: number | undefined
  /** How long a runner's claim lasts unless renewed (default 30 s), as for tasks. */
  leaseMs?: number | undefined
}

/** The resumable-requests extension of a runtime, with its durable work (run where the store keeps it). */
export interface ResumableExtension extends Extension {
  readonly work: DurableWork
}

/** The resumable-requests extension a runtime serves, if it serves it. */
export const resumableOf = (runtime: Runtime): ResumableExtension | undefined =>
  runtime.extensions.find((e): e is ResumableExtension => e.id === RESUMABLE && 'work' in e)

/**
 * Resumable requests, as the seed draft proposed them (SEP-975, never merged): a client that declares
 * `resumableRequests` gets its `tools/call` as a stream that opens with `notifications/requests/resumePolicy`.
 * From then on leaving does not cancel the call: its handler runs on in a task runner, its messages are kept
 * with it, and `requests/resume` (the same JSON-RPC id, the token) streams what was missed and the response,
 * on any instance sharing the store. Nothing changes for clients that do not declare it; tasks are the
 * protocol's own way to durable work, and a call that runs as a task stays one.
 *
 * @example
 * ```ts
 * import { createFetchHandler, McpServer, resumable } from 'mcp-edge'
 *
 * const server = new McpServer({ name: 'builds', version: '1.0.0' })
 *   .tool('build', { description: 'Builds for a minute' }, async (_args, ctx) => {
 *     ctx.progress(1, 2)
 *     return 'built'
 *   })
 *
 * export const handler = createFetchHandler(server, { extensions: [resumable({ maxWaitMs: 120_000 })] })
 * ```
 */
export function resumable(options: ResumableOptions = {}): ExtensionPlan {
  const limits = workLimits(options, 'resumable')
  return { id: RESUMABLE, store: options.store, build: (store) => resumableRequests(options, limits, options.store ?? store ?? memoryTaskStore()) }
}

/** `requests/getStatus`: where a resumable request stands, and whether its client has messages to fetch. */
function statusMethod(service: TaskService, waitMs: number): MethodDescriptor {
  return {
    method: 'requests/getStatus',
    eras: ['modern'],
    async run(c) {
      const requestId = c.params.requestId
      if (typeof requestId !== 'string' && typeof requestId !== 'number') throw invalidParams('params.requestId must be a string or a number')
      const id = await openToken(c.runtime, requireString(c.params, 'resumeToken'), requestId, c.principal)
      const { task } = await change(c.runtime, service, id, (t) => waited(t, waitMs))
      if (!task) throw invalidParams('The request has expired: no client came back for it in time')
      const sent = task.sent ?? 0
      const messages = (await readLog(service.store, task, sent)).length + (requestStatus(task) === 'processing' ? 0 : 1)
      return {
        requestId,
        status: requestStatus(task),
        hasPendingMessage: sent < messages,
        hasInputRequest: task.status === 'completed' && task.result?.resultType === 'input_required',
      }
    },
  }
}

/** The resumable-requests extension of one runtime, its requests kept in `store`. */
function resumableRequests(options: ResumableOptions, limits: WorkLimits, store: TaskStore): ResumableExtension {
  const waitMs = options.maxWaitMs ?? 60_000
  const service: TaskService = {
    store,
    // A record outlives its end by one wait: time for its client to come back for the response.
    settings: { ttlMs: waitMs, pollIntervalMs: 1000, leaseMs: options.leaseMs ?? 30_000, limits },
    running: new Map(),
    async journal(runtime, service, id, messages) {
      const seq = await keep(runtime, service, id, messages)
      // Published with their place, so that a stream that has every message before them writes them at once.
      if (seq !== undefined) await runtime.backplane.publish({ topic: taskTopic(id), data: { seq, messages: messages as unknown as JsonObject[] } })
    },
  }

  const start = async (c: Call, { entry, name, args }: ToolCall): Promise<JsonObject | undefined> => {
    const input = await checkArguments(entry, name, args)
    if (!input.ok) return input.result
    // A retry of a multi-round-trip request may be resumable too: its answers go with it into the runner.
    const round = await openRound(c)
    const work: Work = { ...workOf(c, name, args), resumable: { digest: await round.digest(), progressToken: c.progressToken, logLevel: c.logLevel, round: round.number } }
    const holder = newHolder()
    const made = newTask(service.settings, c.principal ?? '', work as unknown as JsonObject, holder, { answers: { ...round.responses, ...round.gathered }, memo: round.memo })
    const task = waited(made, waitMs)
    await keepNew(c, service, task, 'The request is')
    startTask(c.runtime, service, task, holder, { env: c.transport.env, waitUntil: c.transport.waitUntil, deadline: c.transport.deadline })
    const resumeToken = await sealToken(c.runtime, task.id, c.id, c.principal, task.createdAt + 24 * 3_600_000)
    c.transport.emit(notification('notifications/requests/resumePolicy', policy(c.id, resumeToken, options.minWaitMs, waitMs)))
    return follow(c, service, task.id, 0, waitMs)
  }

  const resume: MethodDescriptor = {
    method: RESUME,
    eras: ['modern'],
    async run(c) {
      const id = await openToken(c.runtime, c.params.resumeToken, c.id, c.principal)
      return follow(c, service, id, lastEventId(c), waitMs)
    },
  }

  return {
    id: RESUMABLE,
    store: service.store,
    work: durableWork(service),
    capability: null,
    methods: [resume, statusMethod(service, waitMs)],
    wraps: {
      'tools/call': (inner: MethodDescriptor<ToolCall>) => ({
        ...inner,
        // A call the tasks extension runs as a task is durable already, the protocol's way.
        run: (c: Call, target: ToolCall) => (optedIn(c) && !runsAsTask(c, target.entry.task) ? start(c, target) : inner.run(c, target)),
      }),
    },
    advertise: (caps) => ({ ...caps, experimental: { ...caps.experimental, [RESUMABLE]: {} } }),
    async close() {
      for (const running of service.running.values()) running.abort(new Error('The server is shutting down'))
    },
  }
}

/**
 * Declared in this request: as the seed has it (a top-level capability), or under `experimental`. Not where
 * responses are delivered whole (Lambda behind an HTTP API): there is no stream to open with the policy.
 */
const optedIn = (c: Call): boolean => !c.transport.buffered
  && (isObject((c.client.capabilities as JsonObject)[RESUMABLE]) || isObject(c.client.capabilities.experimental?.[RESUMABLE]))


function policy(requestId: JsonRpcId, resumeToken: string, minWaitMs: number | undefined, maxWaitMs: number): JsonObject {
  const out: JsonObject = { requestId, resumeToken, maxWait: Math.floor(maxWaitMs / 1000) }
  if (minWaitMs !== undefined) out.minWait = Math.ceil(minWaitMs / 1000)
  return out
}

/** How many of its messages the client says it has: SSE's Last-Event-ID, our event ids being their places. */
function lastEventId(c: Call): number {
  const value = c.transport.header?.('last-event-id')?.trim()
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : 0
}
