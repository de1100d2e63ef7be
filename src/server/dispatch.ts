import { LOG_LEVELS, META, type LogLevel } from '../protocol/constants.js'
import { invalidParams, McpError, methodNotFound } from '../protocol/errors.js'
import { isObject, type JsonObject, type JsonRpcId, type JsonRpcNotification } from '../protocol/jsonrpc.js'
import { PROFILES, type Profile } from '../protocol/profiles.js'
import type { ClientCapabilities, Implementation, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '../protocol/types.js'
import { createContext, type RequestContext } from './context.js'
import { page } from './cursor.js'
import { InputRequired, inputRequiredResult, openRound, type Round } from './input.js'
import { completion, promptResult, resourceContents, toolError, toolResult } from './results.js'
import type { McpServer } from './server.js'

/** One request, already past envelope and header validation, as the transports hand it over. */
export interface Call {
  id: JsonRpcId
  method: string
  params: JsonObject
  profile: Profile
  capabilities: ClientCapabilities
  clientInfo?: Implementation
  logLevel?: LogLevel
  progressToken?: string | number
  signal: AbortSignal
  /** Where progress and log notifications go (the request's SSE stream, or stdio). */
  emit: (message: JsonRpcNotification) => void
  request?: Request
  env?: unknown
  /** The authenticated principal, bound into requestState. */
  principal?: string
}

type Method = (server: McpServer, call: Call) => Promise<JsonObject>

interface MethodSpec {
  run: Method
  /** The server capability the method belongs to: without it the method does not exist (-32601). */
  capability?: keyof ServerCapabilities
  /** Results that carry caching hints (SEP-2549), by the cache policy they use. */
  cache?: 'discover' | 'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'read'
}

const listMethod = <T>(list: 'tools' | 'prompts' | 'resourceTemplates', key: string, build: (s: McpServer) => T[]): Method =>
  async (server, call) => {
    const { items, nextCursor } = page(server.list(list, () => build(server)), list, call.params.cursor, pageSize(server))
    return nextCursor === undefined ? { [key]: items } : { [key]: items, nextCursor }
  }

const pageSize = (server: McpServer) => server.options.pageSize ?? 100

const enabled = <E extends { enabled: boolean }>(map: Map<string, E>) => [...map.values()].filter((e) => e.enabled)

const SHARED: Record<string, MethodSpec> = {
  'tools/list': { capability: 'tools', cache: 'tools', run: listMethod<Tool>('tools', 'tools', (s) => enabled(s.tools).map((e) => e.tool)) },
  'tools/call': { capability: 'tools', run: callTool },
  'prompts/list': { capability: 'prompts', cache: 'prompts', run: listMethod<Prompt>('prompts', 'prompts', (s) => enabled(s.prompts).map((e) => e.prompt)) },
  'prompts/get': { capability: 'prompts', run: getPrompt },
  'resources/list': { capability: 'resources', cache: 'resources', run: listResources },
  'resources/templates/list': {
    capability: 'resources', cache: 'resourceTemplates',
    run: listMethod<ResourceTemplate>('resourceTemplates', 'resourceTemplates', (s) => enabled(s.templates).map((e) => e.template)),
  },
  'resources/read': { capability: 'resources', cache: 'read', run: readResource },
  'completion/complete': { capability: 'completions', run: complete },
}

const MODERN: Record<string, MethodSpec> = {
  'server/discover': { cache: 'discover', run: discover },
  // Served by the transports, which own the stream (see listen.ts); it only has to exist here.
  'subscriptions/listen': { run: async () => { throw new Error('subscriptions/listen needs a streaming transport') } },
  ...SHARED,
}

const LEGACY: Record<string, MethodSpec> = {
  initialize: { run: initialize },
  ping: { run: async () => ({}) },
  'logging/setLevel': { capability: 'logging', run: setLevel },
  ...SHARED,
}

/** Whether the method exists for this profile and server (the -32601 decision, made before capability checks). */
export function methodSpec(server: McpServer, profile: Profile, method: string): MethodSpec | undefined {
  const spec = Object.hasOwn(profile.era === 'modern' ? MODERN : LEGACY, method)
    ? (profile.era === 'modern' ? MODERN : LEGACY)[method]
    : undefined
  if (!spec) return undefined
  if (spec.capability && !server.capabilities()[spec.capability]) return undefined
  return spec
}

/** Runs one request to its result, decorated for the request's protocol version. Errors are McpErrors. */
export async function dispatch(server: McpServer, call: Call): Promise<JsonObject> {
  const spec = methodSpec(server, call.profile, call.method)
  if (!spec) throw methodNotFound(call.method)
  const result = await spec.run(server, call)
  return decorate(server, call.profile, result, spec.cache)
}

function decorate(server: McpServer, profile: Profile, result: JsonObject, cache: MethodSpec['cache']): JsonObject {
  if (profile.era === 'legacy') return result
  const complete = result.resultType === undefined || result.resultType === 'complete'
  const out: JsonObject = { resultType: 'complete', ...result }
  if (complete && cache && profile.cacheFields) {
    const policy = cache === 'read' && isObject(result._cache) ? result._cache : server.cachePolicy(cache)
    out.ttlMs = policy.ttlMs
    out.cacheScope = policy.cacheScope
  }
  delete out._cache
  if (profile.serverInfoInResultMeta) out._meta = { ...(isObject(result._meta) ? result._meta : {}), [META.serverInfo]: server.info }
  return out
}

function context(call: Call, round?: Round): RequestContext {
  return createContext({
    id: call.id,
    method: call.method,
    profile: call.profile,
    capabilities: call.capabilities,
    clientInfo: call.clientInfo,
    meta: isObject(call.params._meta) ? call.params._meta : {},
    logLevel: call.logLevel,
    progressToken: call.progressToken,
    signal: call.signal,
    emit: call.emit,
    round,
    request: call.request,
    env: call.env,
  })
}

/** Runs a handler that may ask for input, turning an unanswered request into an `input_required` result. */
async function withInput<T>(server: McpServer, call: Call, run: (ctx: RequestContext) => Promise<T>): Promise<T | JsonObject> {
  const round = call.profile.inputRequiredMethods.has(call.method)
    ? await openRound(server, call.method, call.params, call.principal)
    : undefined
  try {
    return await run(context(call, round))
  } catch (e) {
    if (e instanceof InputRequired && round) return inputRequiredResult(server, round, e.requests)
    throw e
  }
}

const requireString = (params: JsonObject, key: string): string => {
  const value = params[key]
  if (typeof value !== 'string') throw invalidParams(`params.${key} must be a string`)
  return value
}

const argumentsOf = (params: JsonObject): JsonObject => {
  const args = params.arguments ?? {}
  if (!isObject(args)) throw invalidParams('params.arguments must be an object')
  return args
}

async function discover(server: McpServer, call: Call): Promise<JsonObject> {
  const result: JsonObject = { supportedVersions: server.versions, capabilities: server.capabilities() }
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions
  if (call.profile.serverInfoInDiscoverBody) result.serverInfo = server.info
  return result
}

async function initialize(server: McpServer, call: Call): Promise<JsonObject> {
  // Legacy negotiation: echo the requested version when we speak it, otherwise offer our newest legacy one.
  const requested = call.params.protocolVersion
  const legacy = server.versions.filter((v) => PROFILES.get(v)?.era === 'legacy')
  const protocolVersion = typeof requested === 'string' && legacy.includes(requested) ? requested : legacy[0]
  const result: JsonObject = { protocolVersion, capabilities: server.capabilities(), serverInfo: server.info }
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions
  return result
}

async function setLevel(_server: McpServer, call: Call): Promise<JsonObject> {
  if (!LOG_LEVELS.includes(call.params.level as LogLevel)) throw invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`)
  // Stateless: there is no session to remember the level in, and requests carry no level of their own.
  return {}
}

async function callTool(server: McpServer, call: Call): Promise<JsonObject> {
  const name = requireString(call.params, 'name')
  const entry = server.tools.get(name)
  if (!entry?.enabled) throw invalidParams(`Unknown tool: ${name}`)
  if (entry.requires) {
    const missing = missingCapabilities(entry.requires, call.capabilities)
    if (missing) {
      throw new McpError(call.profile.missingCapabilityCode, `Tool ${name} requires client capabilities this request did not declare`,
        { requiredCapabilities: missing }, 400)
    }
  }
  let args: unknown = argumentsOf(call.params)
  if (entry.input) {
    const checked = await entry.input.validate(args)
    if (!checked.ok) return { ...toolError(`Invalid arguments for tool ${name}: ${checked.issues.join('; ')}`) }
    args = checked.value
  }
  return withInput(server, call, async (ctx) => {
    let result
    try {
      result = toolResult(await entry.handler(args as never, ctx))
    } catch (e) {
      if (e instanceof InputRequired || (e instanceof McpError && e.code !== -32603)) throw e
      // A failing tool is a result the model can read and react to, not a protocol error.
      return { ...toolError(e instanceof Error ? e.message : String(e)) }
    }
    if (entry.output && !result.isError) {
      const checked = await entry.output.validate(result.structuredContent)
      if (!checked.ok) {
        throw new McpError(-32603, `Tool ${name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`)
      }
    }
    return { ...result }
  })
}

/** The members of `required` that `declared` lacks, or undefined when all are there. */
function missingCapabilities(required: ClientCapabilities, declared: ClientCapabilities): ClientCapabilities | undefined {
  const missing: JsonObject = {}
  for (const [key, value] of Object.entries(required)) {
    const have = declared[key]
    if (!isObject(have)) missing[key] = value
    else if (isObject(value)) {
      const nested = missingCapabilities(value, have)
      if (nested) missing[key] = nested
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined
}

async function getPrompt(server: McpServer, call: Call): Promise<JsonObject> {
  const name = requireString(call.params, 'name')
  const entry = server.prompts.get(name)
  if (!entry?.enabled) throw invalidParams(`Unknown prompt: ${name}`)
  const raw = argumentsOf(call.params)
  let args: unknown = raw
  if (entry.schema) {
    const checked = await entry.schema.validate(raw)
    if (!checked.ok) throw invalidParams(`Invalid arguments for prompt ${name}: ${checked.issues.join('; ')}`)
    args = checked.value
  } else {
    const missing = (entry.prompt.arguments ?? []).filter((a) => a.required && typeof raw[a.name] !== 'string').map((a) => a.name)
    if (missing.length > 0) throw invalidParams(`Missing required arguments for prompt ${name}: ${missing.join(', ')}`)
  }
  return withInput(server, call, async (ctx) => ({ ...promptResult(await entry.handler(args as never, ctx)) }))
}

async function listResources(server: McpServer, call: Call): Promise<JsonObject> {
  const fixed = server.list<Resource>('resources', () => enabled(server.resources).map((e) => e.resource))
  const listing = enabled(server.templates).filter((e) => e.def.list)
  let all = fixed
  if (listing.length > 0) {
    const ctx = context(call)
    const listed = await Promise.all(listing.map((e) => e.def.list!(ctx)))
    all = [...fixed, ...listed.flat()]
  }
  const { items, nextCursor } = page(all, 'resources', call.params.cursor, pageSize(server))
  return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor }
}

async function readResource(server: McpServer, call: Call): Promise<JsonObject> {
  const uri = requireString(call.params, 'uri')
  const notFound = () => invalidParams(`Resource not found: ${uri}`, { uri })
  const fixed = server.resources.get(uri)
  return withInput(server, call, async (ctx) => {
    if (fixed?.enabled) {
      const contents = resourceContents(await fixed.handler(uri, ctx), uri, fixed.resource.mimeType)
      if (!contents) throw notFound()
      return fixed.cache ? { contents, _cache: fixed.cache } : { contents }
    }
    for (const entry of enabled(server.templates)) {
      const variables = entry.parsed.match(uri)
      if (!variables) continue
      const contents = resourceContents(await entry.handler(uri, variables, ctx), uri, entry.template.mimeType)
      if (!contents) throw notFound()
      return entry.def.cache ? { contents, _cache: entry.def.cache } : { contents }
    }
    throw notFound()
  })
}

async function complete(server: McpServer, call: Call): Promise<JsonObject> {
  const ref = call.params.ref
  const argument = call.params.argument
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('completion/complete needs ref and argument { name, value }')
  }
  const given = isObject(call.params.context) && isObject(call.params.context.arguments) ? call.params.context.arguments : {}
  const args = Object.fromEntries(Object.entries(given).filter(([, v]) => typeof v === 'string')) as Record<string, string>
  const value = argument.value
  let values: Awaited<ReturnType<typeof completion>> | undefined
  if (ref.type === 'ref/prompt') {
    const entry = typeof ref.name === 'string' ? server.prompts.get(ref.name) : undefined
    if (!entry?.enabled) throw invalidParams(`Unknown prompt: ${String(ref.name)}`)
    const completer = entry.complete[argument.name]
    if (completer) values = completion(await completer(value, { arguments: args, ctx: context(call) }))
    else if (entry.enums[argument.name]) values = completion(entry.enums[argument.name]!.filter((v) => v.startsWith(value)))
  } else if (ref.type === 'ref/resource') {
    const entry = typeof ref.uri === 'string' ? server.templates.get(ref.uri) : undefined
    if (!entry?.enabled) throw invalidParams(`Unknown resource template: ${String(ref.uri)}`)
    const completer = entry.def.complete?.[argument.name]
    if (completer) values = completion(await completer(value, { arguments: args, ctx: context(call) }))
  } else {
    throw invalidParams('ref.type must be ref/prompt or ref/resource')
  }
  return { completion: values ?? { values: [] } }
}
