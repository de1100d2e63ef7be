import { LOG_LEVELS, type LogLevel } from '../../protocol/constants.js'
import { invalidParams } from '../../protocol/errors.js'
import type { JsonObject } from '../../protocol/jsonrpc.js'
import { PROFILES } from '../../protocol/profiles.js'
import type { ServerCapabilities } from '../../protocol/types.js'
import { cached, type Call } from '../call.js'
import type { McpServer } from '../server.js'

export async function discover(server: McpServer, call: Call): Promise<JsonObject> {
  const result: JsonObject = { supportedVersions: server.versions, capabilities: server.capabilities() }
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions
  if (call.profile.serverInfoInDiscoverBody) result.serverInfo = server.info
  return cached(call, server.cachePolicy('discover'), result)
}

/** The 2025 handshake, answered without remembering anything: no session id is minted. */
export async function initialize(server: McpServer, call: Call): Promise<JsonObject> {
  // Echo the requested version when we speak it, otherwise offer our newest legacy one.
  const requested = call.params.protocolVersion
  const legacy = server.versions.filter((v) => PROFILES.get(v)?.era === 'legacy')
  const protocolVersion = typeof requested === 'string' && legacy.includes(requested) ? requested : legacy[0]
  const result: JsonObject = { protocolVersion, capabilities: legacyCapabilities(server.capabilities()), serverInfo: server.info }
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions
  return result
}

/**
 * Legacy clients learn of changes only on a session's GET stream and subscribe with resources/subscribe;
 * a stateless server offers neither, so it must not advertise them.
 */
function legacyCapabilities(caps: ServerCapabilities): ServerCapabilities {
  const out: ServerCapabilities = { ...caps }
  if (caps.tools) out.tools = {}
  if (caps.prompts) out.prompts = {}
  if (caps.resources) out.resources = {}
  return out
}

export async function setLevel(_server: McpServer, call: Call): Promise<JsonObject> {
  if (!LOG_LEVELS.includes(call.params.level as LogLevel)) throw invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`)
  // Stateless: there is no session to remember the level in, and requests carry no level of their own.
  return {}
}

export const ping = async (): Promise<JsonObject> => ({})
