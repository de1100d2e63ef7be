/**
 * Generated HTTP requests for the fetch handler (fast-check): mostly well-formed JSON-RPC with one thing
 * wrong, some garbage. What every answer must be: never a 5xx, never a hang, JSON when it says JSON; and the
 * server answers a plain call afterwards. Used by test/fuzz/fetch-handler.test.ts (a few hundred in CI)
 * and scripts/fuzz.ts (`npm run fuzz`, 100,000), each also with authorization on and a mix of Authorization
 * headers (test/fuzz/authorization.ts).
 */
import fc from 'fast-check'
import { createEverythingServer } from '../../examples/everything/server.js'
import { type Authorization, createFetchHandler, type FetchHandler, tasks } from '../../src/index.js'
import type { AuthHeader } from './authorization.js'

const VERSIONS = ['2026-07-28', 'DRAFT-2026-v1', '2025-11-25', '2025-06-18', '2025-03-26']
const METHODS = [
  'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list',
  'prompts/get', 'completion/complete', 'logging/setLevel', 'subscriptions/listen', 'tasks/get', 'tasks/update', 'tasks/cancel',
  'tasks/result', 'tasks/list', 'initialize', 'ping', 'notifications/initialized', 'notifications/cancelled',
]
const TOOLS = ['add', 'test_simple_text', 'test_error_handling', 'test_tool_with_progress', 'test_input_required_result_elicitation', 'greet', 'confirm_delete', 'nope']

/** A value that is sometimes right, sometimes of the wrong type, sometimes absent. */
const maybe = <T>(right: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: fc.constant(undefined) })

const meta = fc.record({
  'io.modelcontextprotocol/protocolVersion': maybe(fc.constantFrom(...VERSIONS)),
  'io.modelcontextprotocol/clientInfo': maybe(fc.record({ name: fc.string(), version: fc.string() })),
  'io.modelcontextprotocol/clientCapabilities': maybe(fc.record({ elicitation: fc.constant({}), extensions: fc.constant({ 'io.modelcontextprotocol/tasks': {} }) }, { requiredKeys: [] })),
  'io.modelcontextprotocol/logLevel': maybe(fc.constantFrom('debug', 'info', 'error', 'loud')),
  progressToken: maybe(fc.oneof(fc.string(), fc.integer())),
}, { requiredKeys: ['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities'] })

const params = fc.record({
  _meta: fc.oneof({ weight: 12, arbitrary: meta }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
  name: maybe(fc.constantFrom(...TOOLS, 'greeting-prompt', 'test_simple_prompt')),
  uri: maybe(fc.constantFrom('test://static-text', 'test://template/1/data', 'test://missing', 'not a uri')),
  arguments: maybe(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 6 }), { maxKeys: 4 })),
  taskId: maybe(fc.oneof(fc.string(), fc.constant('AAAAAAAAAAAAAAAAAAAAAA'))),
  notifications: maybe(fc.record({
    toolsListChanged: maybe(fc.boolean()),
    resourceSubscriptions: maybe(fc.array(fc.string({ maxLength: 40 }), { maxLength: 20 })),
    taskIds: maybe(fc.array(fc.string(), { maxLength: 5 })),
  }, { requiredKeys: [] })),
  requestState: maybe(fc.string()),
  inputResponses: maybe(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 })),
  cursor: maybe(fc.string()),
  ref: maybe(fc.record({ type: fc.constantFrom('ref/prompt', 'ref/resource', 'ref/x'), name: fc.string(), uri: fc.string() })),
  argument: maybe(fc.record({ name: fc.string(), value: fc.string() })),
}, { requiredKeys: [] })

const envelope = fc.record({
  jsonrpc: maybe(fc.constant('2.0')),
  id: maybe(fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null))),
  method: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string() }),
  params: maybe(params),
}, { requiredKeys: ['method'] })

export interface Generated {
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: string | Uint8Array | undefined
  /** The kind of its Authorization header, when the fuzz sends them (test/fuzz/authorization.ts). */
  readonly authorization?: string
}

/** Headers mostly as a client sends them for the body's method and name, each sometimes wrong or missing. */
const headersFor = (message: { method?: unknown; params?: unknown }) => {
  const params = (message.params ?? {}) as { name?: unknown; uri?: unknown; _meta?: Record<string, unknown> }
  const version = params._meta?.['io.modelcontextprotocol/protocolVersion']
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined
  return fc.record({
  'content-type': fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=utf-8', '') }),
  accept: fc.constantFrom('application/json, text/event-stream', 'application/json', '*/*'),
  'mcp-protocol-version': typeof version === 'string' ? maybe(fc.constant(version)) : maybe(fc.constantFrom(...VERSIONS, 'garbage')),
  'mcp-method': fc.oneof({ weight: 12, arbitrary: fc.constant(String(message.method)) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
  'mcp-name': name === undefined ? fc.constant(undefined) : maybe(fc.constant(name)),
  'mcp-param-a': fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
  }, { requiredKeys: ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'] })
    .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => typeof v === 'string' && /^[\t\x20-\x7e]*$/.test(v))) as Record<string, string>)
}

export const requests: fc.Arbitrary<Generated> = fc.oneof(
  { weight: 10, arbitrary: envelope.chain((message) => headersFor(message).map((headers) => ({ method: 'POST', headers, body: JSON.stringify(message) }))) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('POST'), headers: fc.constant({ 'content-type': 'application/json' }), body: fc.string() }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('POST'), headers: fc.constant({ 'content-type': 'application/json' }), body: fc.uint8Array({ maxLength: 64 }) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS'), headers: fc.constant({}), body: fc.constant(undefined) }) },
)

/** Each generated request with an Authorization header of `headers` (or none, as drawn). */
export const withAuthorization = (generated: fc.Arbitrary<Generated>, headers: fc.Arbitrary<AuthHeader>): fc.Arbitrary<Generated> =>
  fc.tuple(generated, headers).map(([g, { kind, value }]) => ({
    ...g, authorization: kind, headers: value === undefined ? g.headers : { ...g.headers, authorization: value },
  }))

/** The everything server as a fuzz target: handlers cut after 2 s, so that no generated call runs for long. */
export const fuzzTarget = (auth?: Authorization): FetchHandler =>
  createFetchHandler(createEverythingServer(), { handlerTimeoutMs: 2000, extensions: [tasks()], ...(auth ? { auth } : {}) })

/** What went wrong with one answer, if anything: a 5xx, a hang (no answer, or a body not read, within `ms`), JSON that is not. */
export async function problemWith(handler: FetchHandler, generated: Generated, ms = 5000): Promise<string | undefined> {
  const request = new Request('http://127.0.0.1/mcp', { method: generated.method, headers: generated.headers, body: (generated.body ?? null) as BodyInit | null })
  let timer: ReturnType<typeof setTimeout> | undefined
  const hang = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`no answer within ${ms} ms`), ms)))
  const answer = (async () => {
    const res = await handler(request)
    if (res.status >= 500) return `HTTP ${res.status}: ${await res.text()}`
    if (res.headers.get('content-type') === 'text/event-stream') {
      // A stream (listen, progress): its first event must come; then the client leaves.
      const reader = res.body!.getReader()
      await reader.read()
      await reader.cancel()
      return undefined
    }
    const text = await res.text()
    if (res.headers.get('content-type') === 'application/json') JSON.parse(text)
    return undefined
  })().catch((e: unknown) => `threw: ${(e as Error).stack ?? e}`)
  try {
    return await Promise.race([answer, hang])
  } finally {
    clearTimeout(timer)
  }
}

/** After the fuzzing: does a plain tools/call (with this Authorization header, if any) still get its answer? */
export async function stillAnswers(handler: FetchHandler, authorization?: string): Promise<boolean> {
  const params = { name: 'add', arguments: { a: 2, b: 3 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'f', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } }
  const res = await handler(new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  }))
  return res.status === 200 && (await res.json()).result?.structuredContent?.sum === 5
}
