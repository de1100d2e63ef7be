import { LOG_LEVELS, type LogLevel } from '../../protocol/constants.js'
import { invalidParams } from '../../protocol/errors.js'
import { PROFILES } from '../../protocol/profiles.js'
import type { ServerCapabilities } from '../../protocol/types.js'
import { cached } from '../call.js'
import { servedBy } from '../capabilities.js'
import type { MethodDescriptor } from '../types.js'

export const discover: MethodDescriptor = {
  method: 'server/discover',
  eras: ['modern'],
  async run(call) {
    const { server, extensions } = call.runtime
    const capabilities = extensions.reduce((caps, e) => e.advertise?.(caps, call.profile) ?? caps, call.runtime.capabilities())
    const result: Record<string, unknown> = { supportedVersions: server.versions, capabilities }
    if (server.options.instructions !== undefined) result.instructions = server.options.instructions
    if (call.profile.serverInfoInDiscoverBody) result.serverInfo = server.info
    return cached(call, server.cachePolicy('discover'), result)
  },
}

/** The 2025 handshake, answered without remembering anything: no session id is minted. */
export const initialize: MethodDescriptor = {
  method: 'initialize',
  eras: ['legacy'],
  async run(call) {
    const { server } = call.runtime
    // Echo the requested version when we speak it, otherwise offer our newest legacy one.
    const requested = call.params.protocolVersion
    const legacy = server.versions.filter((v) => PROFILES.get(v)?.era === 'legacy')
    const protocolVersion = typeof requested === 'string' && legacy.includes(requested) ? requested : legacy[0]
    const result: Record<string, unknown> = { protocolVersion, capabilities: legacyCapabilities(call.runtime.capabilities()), serverInfo: server.info }
    if (server.options.instructions !== undefined) result.instructions = server.options.instructions
    return result
  },
}

/**
 * Legacy clients learn of changes only on a session's GET stream, which is not served yet (resources/subscribe
 * is kept with the session, for when it is): no change notifications are advertised. Extensions (tasks) are
 * negotiated per request in the `_meta` envelope, which 2025 requests do not have.
 */
function legacyCapabilities(caps: ServerCapabilities): ServerCapabilities {
  const { extensions: _, ...out }: ServerCapabilities = { ...caps }
  if (caps.tools) out.tools = {}
  if (caps.prompts) out.prompts = {}
  if (caps.resources) out.resources = {}
  return out
}

export const setLevel: MethodDescriptor = {
  method: 'logging/setLevel',
  eras: ['legacy'],
  served: servedBy('logging'),
  async run(call) {
    const level = call.params.level as LogLevel
    if (!LOG_LEVELS.includes(level)) throw invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`)
    // Without a session there is nothing to remember the level in, and requests carry no level of their own.
    await call.transport.session?.setLevel(level)
    return {}
  },
}

export const ping: MethodDescriptor = { method: 'ping', eras: ['legacy'], run: async () => ({}) }
