import { META } from '../protocol/constants.js'
import { methodNotFound } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { ServerCapabilities } from '../protocol/types.js'
import type { Call, Method } from './call.js'
import { complete } from './methods/completion.js'
import { discover, initialize, ping, setLevel } from './methods/lifecycle.js'
import { getPrompt, listPrompts } from './methods/prompts.js'
import { listResources, listTemplates, readResource } from './methods/resources.js'
import { callTool, listTools } from './methods/tools.js'
import type { McpServer } from './server.js'

export type { Call } from './call.js'

interface MethodSpec {
  run: Method
  /** The server capability the method belongs to: without it the method does not exist (-32601). */
  capability?: keyof ServerCapabilities
}

const SHARED: Record<string, MethodSpec> = {
  'tools/list': { capability: 'tools', run: listTools },
  'tools/call': { capability: 'tools', run: callTool },
  'prompts/list': { capability: 'prompts', run: listPrompts },
  'prompts/get': { capability: 'prompts', run: getPrompt },
  'resources/list': { capability: 'resources', run: listResources },
  'resources/templates/list': { capability: 'resources', run: listTemplates },
  'resources/read': { capability: 'resources', run: readResource },
  'completion/complete': { capability: 'completions', run: complete },
}

const MODERN: Record<string, MethodSpec> = {
  'server/discover': { run: discover },
  // Served by the transports, which own the stream (see listen.ts); it only has to exist here.
  'subscriptions/listen': { run: () => Promise.reject(new Error('needs a streaming transport')) },
  ...SHARED,
}

const LEGACY: Record<string, MethodSpec> = {
  initialize: { run: initialize },
  ping: { run: ping },
  'logging/setLevel': { capability: 'logging', run: setLevel },
  ...SHARED,
}

/** Whether the method exists for this profile and server (the -32601 decision, made before capability checks). */
export function methodSpec(server: McpServer, profile: Profile, method: string): MethodSpec | undefined {
  const table = profile.era === 'modern' ? MODERN : LEGACY
  const spec = Object.hasOwn(table, method) ? table[method] : undefined
  if (spec?.capability && !server.capabilities()[spec.capability]) return undefined
  return spec
}

/** Runs one request to its result, decorated for the request's protocol version. Errors are McpErrors. */
export async function dispatch(server: McpServer, call: Call): Promise<JsonObject> {
  const spec = methodSpec(server, call.profile, call.method)
  if (!spec) throw methodNotFound(call.method)
  // Results are fresh objects made for this request (methods copy what handlers return), so they are
  // decorated in place.
  const result = await spec.run(server, call)
  if (call.profile.era === 'legacy') return result
  result.resultType ??= 'complete'
  if (call.profile.serverInfoInResultMeta) {
    result._meta = isObject(result._meta) ? { ...result._meta, [META.serverInfo]: server.info } : server.infoMeta
  }
  return result
}
