/**
 * Validates every message a server sends against the published JSON Schema of the protocol version the
 * request spoke: results by the method's result type, errors by their code, notifications by method.
 * The 2025 era is checked against the 2025-11-25 schema as the official v1 SDK encodes it (its zod
 * schemas); a version nobody knows gets answers in the newest dialect, so 2026-07-28 checks those.
 * `recordingFetch` wraps fetch so that SDK clients and raw tests alike are checked without changing them.
 */
import * as legacy from '@modelcontextprotocol/sdk/types.js'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void
const load = (file: string) => JSON.parse(readFileSync(new URL(`../fixtures/spec/${file}`, import.meta.url), 'utf8'))

const SCHEMAS: Record<string, { id: string; schema: Record<string, unknown> }> = {
  '2026-07-28': { id: 'mcp-2026-07-28', schema: load('schema-2026-07-28.json') },
  'DRAFT-2026-v1': { id: 'mcp-draft-2026-v1', schema: load('schema-DRAFT-2026-v1.json') },
}

const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
for (const { id, schema } of Object.values(SCHEMAS)) ajv.addSchema({ ...schema, $id: id })
// The tasks extension (io.modelcontextprotocol/tasks) has its own schema: its results and notification.
const TASKS_SCHEMA = 'mcp-ext-tasks'
ajv.addSchema({ ...load('schema-ext-tasks.json'), $id: TASKS_SCHEMA })
// Resumable requests (seed 000, never merged): the fragments its diff adds to the schema.
const RESUMABLE_SCHEMA = 'mcp-seed-resumable'
ajv.addSchema({ ...load('schema-resumable-seed.json'), $id: RESUMABLE_SCHEMA })
/** The seed draft's core tasks, in its own schema. */
const SEED_TASKS_RESULT_OF: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/cancel': 'CancelTaskResult',
  'tasks/list': 'ListTasksResult',
  'tasks/result': 'GetTaskPayloadResult',
  'tasks/input_response': 'Result',
}
const TASKS_RESULT_OF: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
}

const RESULT_OF: Record<string, string> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  // Only tools/call is made resumable: a resume ends with its result.
  'requests/resume': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
}

function defs(version: string): Record<string, { properties?: { method?: { const?: string }; error?: unknown } }> {
  return SCHEMAS[version]!.schema.$defs as never
}

function errorDef(version: string, error: { code: number; data?: { requested?: unknown } }): string {
  for (const name of ['HeaderMismatchError', 'MissingRequiredClientCapabilityError', 'UnsupportedProtocolVersionError']) {
    const def = defs(version)[name]
    if (!def || !JSON.stringify(def).includes(`"const":${error.code},`)) continue
    // The seed draft reused -32602 for unsupported versions: only an error naming a version is one.
    if (error.code === -32602 && error.data?.requested === undefined) continue
    return name
  }
  return 'JSONRPCErrorResponse'
}

function check(version: string, def: string, value: unknown, schemaId = SCHEMAS[version]!.id): string[] {
  const validate = ajv.getSchema(`${schemaId}#/$defs/${def}`)
  if (!validate) return [`no schema definition ${def} in ${version}`]
  if (validate(value)) return []
  return (validate.errors ?? []).map((e) => `${def}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
}

interface ZodLike { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }

const LEGACY_RESULT_OF: Record<string, ZodLike> = {
  initialize: legacy.InitializeResultSchema,
  ping: legacy.EmptyResultSchema,
  'logging/setLevel': legacy.EmptyResultSchema,
  'tools/list': legacy.ListToolsResultSchema,
  'tools/call': legacy.CallToolResultSchema,
  'prompts/list': legacy.ListPromptsResultSchema,
  'prompts/get': legacy.GetPromptResultSchema,
  'resources/list': legacy.ListResourcesResultSchema,
  'resources/templates/list': legacy.ListResourceTemplatesResultSchema,
  'resources/read': legacy.ReadResourceResultSchema,
  'completion/complete': legacy.CompleteResultSchema,
}

const LEGACY_NOTIFICATION_OF: Record<string, ZodLike> = {
  'notifications/progress': legacy.ProgressNotificationSchema,
  'notifications/message': legacy.LoggingMessageNotificationSchema,
  'notifications/cancelled': legacy.CancelledNotificationSchema,
}

export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26']

function checkZod(name: string, schema: ZodLike, value: unknown): string[] {
  const result = schema.safeParse(value)
  return result.success ? [] : (result.error?.issues ?? []).map((i) => `${name}/${i.path.join('/')} ${i.message}`)
}

function validateLegacy(method: string | undefined, message: Record<string, unknown>): string[] {
  if (typeof message.method === 'string') {
    // A request to the client (a 2025 session's elicitation, sampling or roots), sent on the call's stream.
    if ('id' in message) return [...checkZod('JSONRPCRequest', legacy.JSONRPCRequestSchema, message), ...checkZod(message.method, legacy.ServerRequestSchema, message)]
    return checkZod(message.method, LEGACY_NOTIFICATION_OF[message.method] ?? legacy.ServerNotificationSchema, message)
  }
  if ('error' in message) return checkZod('JSONRPCErrorResponse', legacy.JSONRPCErrorResponseSchema, message)
  const errors = checkZod('JSONRPCResultResponse', legacy.JSONRPCResultResponseSchema, message)
  const result = method === undefined ? undefined : LEGACY_RESULT_OF[method]
  if (!result) return [...errors, `no 2025 result schema for ${method}`]
  // 2026 fields have no place in a 2025 answer, though the 2025 schema, open to extra members, would pass them.
  const extra = ['resultType', 'ttlMs', 'cacheScope'].filter((k) => k in (message.result as object))
  return [...errors, ...checkZod(method!, result, message.result), ...extra.map((k) => `${method}: 2026 field ${k} in a 2025 answer`)]
}

/**
 * Schema violations of one message sent by the server in answer to `method`, at `version`: a 2026 version,
 * a 2025 one (or 'legacy' for a request that named none), or a version the server does not know.
 */
export function validateServerMessage(version: string, method: string | undefined, message: Record<string, unknown>): string[] {
  if (version === 'legacy' || LEGACY_VERSIONS.includes(version)) return validateLegacy(method, message)
  if (!SCHEMAS[version]) version = '2026-07-28'
  if (message.method === 'notifications/tasks') return check(version, 'TaskStatusNotification', message, TASKS_SCHEMA)
  if (message.method === 'notifications/requests/resumePolicy') {
    return [...check(version, 'JSONRPCNotification', message), ...check(version, 'ResumePolicyNotification', message, RESUMABLE_SCHEMA)]
  }
  if (method === 'requests/getStatus' && 'result' in message) {
    return [...check(version, 'JSONRPCResultResponse', message), ...check(version, 'GetRequestStatusResult', message.result, RESUMABLE_SCHEMA)]
  }
  if (typeof message.method === 'string') {
    const def = Object.entries(defs(version)).find(([name, d]) => d.properties?.method?.const === message.method && name.endsWith('Notification'))
    return check(version, def?.[0] ?? 'JSONRPCNotification', message)
  }
  if ('error' in message) {
    return check(version, errorDef(version, message.error as { code: number }), message)
  }
  const result = message.result as Record<string, unknown>
  const errors = check(version, 'JSONRPCResultResponse', message)
  if (version === '2026-07-28' && (result?.resultType === 'task' || (method && TASKS_RESULT_OF[method]))) {
    return [...errors, ...check(version, result?.resultType === 'task' ? 'CreateTaskResult' : TASKS_RESULT_OF[method!]!, result, TASKS_SCHEMA)]
  }
  const seedTasks = version === 'DRAFT-2026-v1' && (result?.task !== undefined ? 'CreateTaskResult' : method && SEED_TASKS_RESULT_OF[method])
  const def = result?.resultType === 'input_required' ? 'InputRequiredResult' : seedTasks || (method && RESULT_OF[method])
  return def ? [...errors, ...check(version, def, result)] : errors
}

/** The version a request speaks, for validating its answer: its `_meta`, else its header, else the 2025 era. */
export function requestVersion(body: unknown, header: string | null | undefined): string {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta
  const version = meta?.['io.modelcontextprotocol/protocolVersion']
  return typeof version === 'string' ? version : header ?? 'legacy'
}

export interface WireRecord {
  method?: string | undefined
  version: string
  status: number
  messages: Record<string, unknown>[]
}

/** The data of one SSE event (its `data:` lines joined); empty for comments. */
const eventData = (event: string) => event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n')

/** Parses an SSE body into its JSON messages as they arrive. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, end)
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '')
      const data = eventData(event)
      if (data) yield JSON.parse(data)
    }
  }
}

/**
 * A fetch that validates every server message and keeps them for inspection. `base` is what actually
 * answers: the network by default, or a fetch handler called in-process.
 */
export function recordingFetch(base: (request: Request) => Promise<Response> = (r) => fetch(r)) {
  const violations: string[] = []
  const records: WireRecord[] = []
  const pending = new Set<Promise<void>>()

  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const text = request.method === 'POST' ? await request.clone().text() : ''
    let body: Record<string, unknown> | undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const version = requestVersion(body, request.headers.get('mcp-protocol-version'))
    const method = typeof body?.method === 'string' ? body.method : undefined
    const response = await base(request)
    const record: WireRecord = { method, version, status: response.status, messages: [] }
    records.push(record)
    const take = (m: Record<string, unknown>) => {
      record.messages.push(m)
      for (const v of validateServerMessage(version, method, m)) violations.push(`${method}: ${v}`)
    }
    const type = response.headers.get('content-type') ?? ''
    if (!response.body) return response
    if (type.startsWith('text/event-stream')) {
      // Parse events as the client pulls them, so the client keeps full control of the stream's life.
      const source = response.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ''
      let finish!: () => void
      const done = new Promise<void>((resolve) => (finish = resolve))
      pending.add(done)
      done.finally(() => pending.delete(done))
      // A client that has its answer may stop reading and abort the request instead of cancelling the body.
      request.signal.addEventListener('abort', () => finish(), { once: true })
      const parse = (flush: boolean) => {
        const events = buffer.split(/\r?\n\r?\n/)
        buffer = flush ? '' : events.pop()!
        for (const event of events) {
          const data = eventData(event)
          if (data) take(JSON.parse(data))
        }
      }
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done: ended, value } = await source.read()
            if (ended) {
              parse(true)
              finish()
              return controller.close()
            }
            buffer += decoder.decode(value, { stream: true })
            parse(false)
            controller.enqueue(value)
          } catch (e) {
            finish()
            controller.error(e)
          }
        },
        async cancel(reason) {
          finish()
          await source.cancel(reason)
        },
      })
      return new Response(body, response)
    }
    const raw = await response.text()
    if (type.startsWith('application/json') && raw) take(JSON.parse(raw))
    return new Response(raw, response)
  }
  return {
    fetch: wrapped as typeof fetch,
    violations,
    records,
    /** Waits for SSE bodies still being read. */
    settled: () => Promise.all([...pending]),
  }
}
