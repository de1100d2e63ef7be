import { INTERNAL_ERROR, INVALID_PARAMS, type LogLevel } from '../protocol/constants.js'
import { McpError } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { PROFILES } from '../protocol/profiles.js'
import type { ClientCapabilities, Implementation } from '../protocol/types.js'
import type { AuthInfo } from '../server/context.js'
import type { Call, Runtime, Transport } from '../exchange/types.js'
import { Cancellation } from '../exchange/cancellation.js'
import { Context } from '../exchange/context.js'
import { InputRequired, inputRequiredResult, type Round } from '../exchange/input.js'
import { checkArguments, invokeTool } from '../exchange/methods/tools.js'
import { isResync } from '../state/backplane.js'
import { isTerminal, type TaskRecord, type TaskStatus } from '../state/tasks.js'
import { finish, park, reapLost, RecordTooLarge, renewLease } from './records.js'
import { change, taskTopic, type DurableWork, type TaskHost, type TaskService } from './service.js'

/** What a task runs, as stored with it: enough to run it on any instance, at any later time. */
export interface Work {
  readonly tool: string
  readonly arguments: JsonObject
  /** The protocol version of the request that made it. */
  readonly version: string
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
  /** What the token of the request that made it said: the handler sees it as `ctx.auth` (never the token itself). */
  readonly auth?: AuthInfo | undefined
  /** The trace context (W3C traceparent) of the request that made it, which its runs link back to. */
  readonly trace?: string | undefined
  /** Set when a resumable request runs it (src/resumable/): its messages are kept, and input ends it. */
  readonly resumable?: {
    /** The digest of the request's params, which the requestState of an input_required result names. */
    readonly digest: string
    readonly progressToken?: string | number | undefined
    readonly logLevel?: LogLevel | undefined
    /** Which round of a multi-round-trip request made it (1 when it had no requestState). */
    readonly round?: number | undefined
  } | undefined
}

/** What a call leaves for its task's runner: the tool and its arguments, who asked and how, and the trace it was asked in. */
export function workOf(c: Call, tool: string, args: JsonObject): Work {
  const trace = c.runtime.telemetry?.traceparent?.()
  return { tool, arguments: args, version: c.profile.version, client: c.client, ...(c.auth ? { auth: c.auth } : {}), ...(trace ? { trace } : {}) }
}

/**
 * Starts the runner of a task leased to `holder`: inside the store where it runs tasks itself (a Durable
 * Object), else here, kept alive by the platform's waitUntil where there is one (Workers, and Lambda after
 * the response has ended), else in-process (Node).
 */
export function startTask(runtime: Runtime, service: TaskService, task: TaskRecord, holder: string, host: TaskHost): void {
  const { store } = service
  // Here, the task as just written is handed on: the runner need not read back what this instance wrote.
  const running = store.start ? store.start(task.id, holder) : runTask(runtime, service, task, holder, host)
  const watched = running.catch((e) => void runtime.report(e, { during: 'task runner', requestId: task.id }))
  host.waitUntil?.(watched)
}

/**
 * Runs a task's handler once, as the holder of its lease, and records the outcome. The handler is
 * re-entrant: it starts from the top on every run, with the answers gathered so far, and asking for input
 * that has not come parks the task (input_required) until `tasks/update` brings it. While it runs, the lease
 * is renewed; a renewal that finds the task ended (cancelled) aborts the handler's signal.
 */
export async function runTask(runtime: Runtime, service: TaskService, task: TaskRecord, holder: string, host: TaskHost): Promise<void> {
  if (task.status !== 'working' || task.lease?.holder !== holder) return
  const { id } = task
  const { settings } = service
  const cancel = new Cancellation()
  service.running.set(id, cancel)
  // A cancel served by another instance is announced on the backplane: abort at once rather than at the
  // next renewal. Not awaited: the handler need not wait for the subscription to start.
  const ended = (status: TaskStatus | undefined) => cancel.abort(endedBy(status))
  const watching = runtime.backplane.subscribe([taskTopic(id)], (event) => {
    const task = isResync(event) ? undefined : event.data?.task
    const status = isObject(task) ? task.status : undefined
    if (typeof status === 'string' && isTerminal(status as TaskStatus)) ended(status as TaskStatus)
  }).catch((e) => void runtime.report(e, { during: 'task watch', requestId: id }))
  const renew = setInterval(() => {
    change(runtime, service, id, (t) => renewLease(t, holder, settings)).then(
      ({ task, changed }) => (changed && task?.status === 'working') || ended(task?.status),
      (e) => runtime.report(e, { during: 'task lease', requestId: id }),
    )
  }, Math.max(10, settings.leaseMs / 3))
  const end = (outcome: Parameters<typeof finish>[3], status: 'completed' | 'failed') =>
    change(runtime, service, id, (t) => finish(t, settings, status, outcome, holder)).catch(tooLarge)
  // An outcome the record cannot keep (its result, its memos) fails the task, saying why, in a few bytes.
  const tooLarge = (e: unknown) => {
    if (!(e instanceof RecordTooLarge)) throw e
    return change(runtime, service, id, (t) => finish(t, settings, 'failed', { error: { code: INTERNAL_ERROR, message: e.message } }, holder))
  }
  // A platform that stops the invocation stops the handler with it: say so now rather than when the lease ends.
  const timeUp = host.deadline === undefined ? undefined : setTimeout(() => {
    cancel.abort(new Error('The invocation running the task reached its deadline'))
    end({ error: { code: INTERNAL_ERROR, message: RAN_OUT } }, 'failed').catch((e) => runtime.report(e, { during: 'task deadline', requestId: id }))
  }, Math.max(0, host.deadline - Date.now()))
  // A resumable request's messages are kept in order, and all of them before its response: those emitted
  // while a batch is being kept go out together in the next.
  let kept = Promise.resolve()
  let waiting: JsonRpcNotification[] = []
  // The kept messages count against the record's bound too: past it the call fails rather than lose some.
  const room = settings.limits?.recordBytes ?? Infinity
  let logged = JSON.stringify(task).length
  let overflow: RecordTooLarge | undefined
  const { journal } = service
  const emit = journal && (task.work as unknown as Work).resumable
    ? (message: JsonRpcNotification) => {
      if (overflow) return
      logged += JSON.stringify(message).length
      if (logged > room) return cancel.abort((overflow = new RecordTooLarge('Its messages are', logged, room)))
      if (waiting.push(message) > 1) return
      kept = kept.then(() => {
        const batch = waiting
        waiting = []
        return journal(runtime, service, id, batch)
      }).catch((e) => void runtime.report(e, { during: 'request log', requestId: id }))
    }
    : () => {}
  try {
    const outcome = await traced(runtime, task, host, () => execute(runtime, task, cancel, host, emit))
    await kept
    if (overflow) await tooLarge(overflow)
    else if ('requests' in outcome) await change(runtime, service, id, (t) => park(t, settings, holder, outcome.requests, outcome.answers, outcome.memo)).catch(tooLarge)
    else if ('result' in outcome) await end({ result: outcome.result }, 'completed')
    else await end({ error: outcome.error }, 'failed')
  } finally {
    clearInterval(renew)
    if (timeUp !== undefined) clearTimeout(timeUp)
    await (await watching)?.close().catch((e) => runtime.report(e, { during: 'task watch close', requestId: id }))
    // Last: a shutdown waits for this (./runners.ts), then closes the backplane the watch was on.
    service.running.delete(id)
  }
}

/**
 * One run of the task's handler as a span of its own (`execute_tool {tool}`), linked to the request that
 * made the task: a run may happen in another process, invocation or Durable Object, long after.
 */
async function traced(runtime: Runtime, task: TaskRecord, host: TaskHost, run: () => Promise<Outcome>): Promise<Outcome> {
  const { telemetry } = runtime
  const work = task.work as unknown as Work
  const watch = telemetry?.work?.(`execute_tool ${work.tool}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': work.tool, 'mcp.task.id': task.id }, work.trace)
  if (!watch) return run()
  const outcome = await watch.run(run)
  watch.end('error' in outcome ? String(outcome.error.code) : 'result' in outcome && outcome.result.isError === true ? 'tool_error' : undefined)
  if (telemetry!.flush && host.waitUntil) host.waitUntil(telemetry!.flush().catch((e: unknown) => void runtime.report(e, { during: 'telemetry' })))
  return outcome
}

const RAN_OUT = 'The task ran out of time: the platform stops the invocation that ran it'

type Outcome =
  | { result: JsonObject }
  | { error: JsonObject }
  | { requests: JsonObject; answers: JsonObject; memo: JsonObject }

async function execute(runtime: Runtime, task: TaskRecord, cancel: Cancellation, host: TaskHost, emit: Transport['emit']): Promise<Outcome> {
  const work = task.work as unknown as Work
  const principal = task.owner === '' ? undefined : task.owner
  const { auth, resumable } = work
  const transport: Transport = {
    versionHeader: null, cancel, emit, principal, auth, env: host.env, waitUntil: host.waitUntil, deadline: host.deadline,
  }
  const profile = PROFILES.get(work.version)!
  const call: Call = {
    id: task.id, method: 'tools/call', params: { name: work.tool, arguments: work.arguments }, profile, runtime, transport, principal, auth, client: work.client,
    progressToken: resumable?.progressToken, logLevel: resumable?.logLevel,
  }
  const round: Round = {
    responses: {}, gathered: { ...task.answers }, memo: { ...task.memo }, method: call.method, digest: async () => resumable?.digest ?? '', principal,
    number: resumable?.round ?? 1,
  }
  try {
    const entry = runtime.server.find('tool', work.tool, call)
    if (!entry) return { error: { code: INVALID_PARAMS, message: `Unknown tool: ${work.tool}` } }
    const input = await checkArguments(entry, work.tool, work.arguments)
    if (!input.ok) return { result: input.result }
    return { result: await invokeTool(call, entry, work.tool, input.value, new Context(call, round)) }
  } catch (e) {
    // A resumable request answers as the request would have: input_required, to be retried with the answers.
    if (e instanceof InputRequired && resumable) return { result: await inputRequiredResult(runtime, round, e.requests) }
    if (e instanceof InputRequired) return { requests: e.requests as unknown as JsonObject, answers: round.gathered, memo: round.memo }
    if (e instanceof McpError) return { error: errorObject(e) }
    const errorId = runtime.report(e, { method: call.method, tool: work.tool, requestId: task.id })
    return { error: { code: INTERNAL_ERROR, message: `Internal error (error id ${errorId})` } }
  }
}

const errorObject = (e: McpError): JsonObject => (e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data as JsonObject })

/** Why a runner's handler is aborted when its task ended elsewhere (undefined: the record is gone). */
const endedBy = (status: TaskStatus | undefined): Error =>
  new Error(status === 'cancelled' ? 'The task was cancelled' : `The task has ended (${status ?? 'gone'})`)

/** The durable work of one service, for the extension that owns it. */
export const durableWork = (service: TaskService): DurableWork => ({
  async run(runtime, id, holder, host) {
    const task = await service.store.get(id)
    if (task) await runTask(runtime, service, task, holder, host)
  },
  async reap(runtime, id) {
    await change(runtime, service, id, (t) => reapLost(t, service.settings))
  },
  stop: (id, status) => service.running.get(id)?.abort(endedBy(status)),
})
