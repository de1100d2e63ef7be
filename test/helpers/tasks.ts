/** Requests of a client that declares the tasks extension (and elicitation), to a handler in-process or over HTTP. */
import { afterEach, expect } from 'vitest'
import { createFetchHandler, McpServer, TASKS, type Backplane, type FetchHandler, type HandlerOptions } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { deferred } from './async.js'
import { META_2026, modernHeaders, rpc, tasksFor, TEST_SECRET } from './server.js'

export const TASK_CAPABILITIES = { extensions: { [TASKS]: {} }, elicitation: {} }

type Handler = (request: Request) => Promise<Response>
type Body = { result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } }

/**
 * `target` is a fetch handler, or the URL of a server in another process. `headers` are added to every
 * request (an identity, say). Every answer is checked against the wire schema by `rpc`.
 */
export function taskClient(target: Handler | string, headers: Record<string, string> = {}) {
  const remote = typeof target === 'string'
  const handler: Handler = remote ? (request) => fetch(request) : target
  const send = async (method: string, params: Record<string, unknown>): Promise<Body> => {
    const full = { ...params, _meta: META_2026(TASK_CAPABILITIES) }
    const res = await rpc(handler, method, full, { headers: { ...modernHeaders(method, full), ...headers }, ...(remote ? { url: target } : {}) })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as Body
  }
  const client = {
    send,
    /** Calls a task tool and gives back the id of the task it made. */
    async start(tool: string, args: Record<string, unknown> = {}): Promise<string> {
      const body = await send('tools/call', { name: tool, arguments: args })
      expect(body.result, JSON.stringify(body)).toMatchObject({ resultType: 'task', status: 'working' })
      return body.result!.taskId as string
    },
    get: (taskId: string) => send('tasks/get', { taskId }),
    update: (taskId: string, inputResponses: Record<string, unknown>) => send('tasks/update', { taskId, inputResponses }),
    cancel: (taskId: string) => send('tasks/cancel', { taskId }),
    /** Polls tasks/get until the task has one of `statuses`; fails after `ms` (a bound for a broken run). */
    async waitFor(taskId: string, statuses: string[], ms = 10_000): Promise<Record<string, any>> {
      for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
        const body = await client.get(taskId)
        if (body.error) throw new Error(`tasks/get ${taskId}: ${JSON.stringify(body.error)}`)
        if (statuses.includes(body.result!.status)) return body.result!
        if (Date.now() > end) throw new Error(`task ${taskId} still ${body.result!.status} after ${ms} ms, not ${statuses.join(' or ')}`)
      }
    },
  }
  return client
}

/**
 * Makes fetch handlers (the everything server by default) and closes each after its test, so that task
 * runners and listen streams of one test end with it.
 */
export function handlerPool(): (options?: HandlerOptions, server?: McpServer) => FetchHandler {
  const open: FetchHandler[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.close()))
  })
  return (options = {}, server = createEverythingServer()) => {
    const handler = createFetchHandler(server, { requestState: { secret: TEST_SECRET }, extensions: tasksFor(server), ...options })
    open.push(handler)
    return handler
  }
}

/** The `_meta` of a seed-draft (DRAFT-2026-v1) client, which can answer elicitation unless told otherwise. */
export const SEED_META = (capabilities: Record<string, unknown> = { elicitation: {} }) => ({
  'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1',
  'io.modelcontextprotocol/clientInfo': { name: 'seed-client', version: '0.0.1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
})

/**
 * A backplane that carries nothing: publishes go nowhere and subscriptions hear nothing, as between
 * instances that share a task store but no backplane. What an instance does then, it does on its own.
 */
export function silentBackplane(): Backplane {
  return { publish: async () => {}, subscribe: async () => ({ close: async () => {} }) }
}

/** An elicitation form with one boolean. */
export const FORM = (message: string) => ({ message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })

/**
 * A server whose task tool `wait` runs until its signal aborts: `started` when it runs, `aborted` with the
 * signal's reason.
 */
export function waitingServer() {
  const aborted = deferred<unknown>()
  const started = deferred()
  const server = new McpServer({ name: 'w', version: '1' }).tool('wait', { task: 'required' }, (_a, ctx) => {
    started.resolve()
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
      aborted.resolve(ctx.signal.reason)
      reject(new Error('stopped'))
    }))
  })
  return { server, aborted, started }
}
