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
    const capabilities = legacyCapabilities(call.runtime.capabilities(), call.transport.keepsSessions === true)
    const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo: server.info }
    if (server.options.instructions !== undefined) result.instructions = server.options.instructions
    return result
  },
}

/**
 * Legacy clients learn of changes only on a session's GET stream, and subscribe with resources/subscribe:
 * offered where the transport keeps sessions (src/http/session/), and not where every request stands
 * alone. Extensions (tasks) are negotiated per request in the `_meta` envelope, which 2025 requests lack.
 */
function legacyCapabilities(caps: ServerCapabilities, sessions: boolean): ServerCapabilities {
  const { extensions: _, ...out }: ServerCapabilities = { ...caps }
  const changes = (listChanged: boolean | undefined) => (sessions && listChanged ? { listChanged: true } : {})
  if (caps.tools) out.tools = changes(caps.tools.listChanged)
  if (caps.prompts) out.prompts = changes(caps.prompts.listChanged)
  if (caps.resources) out.resources = { ...changes(caps.resources.listChanged), ...(sessions && caps.resources.subscribe ? { subscribe: true } : {}) }
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
