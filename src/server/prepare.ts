import { DEFAULT_HEADERLESS_LEGACY, ERROR, LATEST_LEGACY, META } from '../protocol/constants.js'
import { readEnvelope } from '../protocol/envelope.js'
import { invalidParams, McpError, methodNotFound } from '../protocol/errors.js'
import { isObject, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import { PROFILES, type Profile } from '../protocol/profiles.js'
import type { Call } from './call.js'
import { methodSpec } from './dispatch.js'
import type { McpServer } from './server.js'

/** A request past validation, waiting only for what the transport adds (signal, emit, ...). */
export type Prepared = Omit<Call, 'cancel' | 'emit' | 'request' | 'env' | 'waitUntil'>

export interface TransportFacts {
  /** The MCP-Protocol-Version header; null on transports that have no headers (stdio). */
  versionHeader: string | undefined | null
  /** Checks of the transport's own (HTTP: Mcp-Method, Mcp-Name, Mcp-Param-*), run once the version is settled. */
  check?: (profile: Profile) => void
}

const DATED = /^\d{4}-\d{2}-\d{2}$/

/**
 * Validation in the order the conformance suite requires: `_meta` fields (-32602), header against `_meta`
 * version (-32020), version supported (-32022), the transport's header checks (-32020), method known
 * (-32601). Requests without the modern envelope (and, over HTTP, without a modern version header) are
 * the 2025 era's and are served as such.
 */
export function prepare(server: McpServer, message: JsonRpcRequest, transport: TransportFacts): Prepared {
  const params = message.params ?? {}
  const header = transport.versionHeader
  const metaVersion = isObject(params._meta) ? params._meta[META.protocolVersion] : undefined
  const legacy = metaVersion === undefined && (header == null || (DATED.test(header) && header < '2026'))
  if (!legacy) return prepareModern(server, message, transport)
  return prepareLegacy(server, message, legacyVersion(server, message, header))
}

/**
 * The legacy version a request speaks. `initialize` names its own; over stdio the version was negotiated
 * once, and the wire differences we model are the same for all 2025 versions. Over HTTP a request without
 * the header is a 2025-03-26 client's, if that version is served; otherwise the header is missing (-32020).
 */
function legacyVersion(server: McpServer, message: JsonRpcRequest, header: string | undefined | null): string {
  if (header) return header
  if (message.method === 'initialize') {
    const asked = typeof message.params?.protocolVersion === 'string' ? message.params.protocolVersion : LATEST_LEGACY
    const served = server.versions.filter((v) => PROFILES.get(v)?.era === 'legacy')
    // Any legacy version we serve can answer; with none, the error names the one asked for.
    return served.includes(asked) ? asked : (served[0] ?? asked)
  }
  if (header === null) return LATEST_LEGACY
  if (server.versions.includes(DEFAULT_HEADERLESS_LEGACY)) return DEFAULT_HEADERLESS_LEGACY
  throw new McpError(ERROR.HEADER_MISMATCH, 'Header mismatch: the required MCP-Protocol-Version header is missing', undefined, 400)
}

function prepareModern(server: McpServer, message: JsonRpcRequest, transport: TransportFacts): Prepared {
  const params = message.params ?? {}
  const envelope = readEnvelope(params)
  const known = PROFILES.get(envelope.protocolVersion)
  const header = transport.versionHeader
  if (header !== null && header !== envelope.protocolVersion) {
    const detail = header === undefined
      ? 'the required MCP-Protocol-Version header is missing'
      : `MCP-Protocol-Version header value '${header}' does not match body value '${envelope.protocolVersion}'`
    throw new McpError(known?.headerMismatchCode ?? ERROR.HEADER_MISMATCH, `Header mismatch: ${detail}`, undefined, 400)
  }
  const profile = known?.era === 'modern' && server.versions.includes(known.version) ? known : undefined
  if (!profile) throw unsupported(server, envelope.protocolVersion, known?.unsupportedVersionCode)
  if (profile.requiresClientInfo && !envelope.clientInfo) {
    throw invalidParams(`Invalid request envelope: _meta["${META.clientInfo}"] is required by ${profile.version}`, undefined, 400)
  }
  transport.check?.(profile)
  if (!methodSpec(server, profile, message.method)) throw methodNotFound(message.method)
  return {
    id: message.id, method: message.method, params, profile,
    capabilities: envelope.clientCapabilities, clientInfo: envelope.clientInfo, logLevel: envelope.logLevel,
    progressToken: envelope.progressToken,
  }
}

function prepareLegacy(server: McpServer, message: JsonRpcRequest, version: string): Prepared {
  const profile = PROFILES.get(version)
  if (!profile || !server.versions.includes(version)) throw unsupported(server, version)
  // Legacy HTTP clients take a 404 for an expired session, so their unknown methods are answered in-band.
  if (!methodSpec(server, profile, message.method)) throw new McpError(ERROR.METHOD_NOT_FOUND, `Method not found: ${message.method}`, undefined, 200)
  const params = message.params ?? {}
  const meta = isObject(params._meta) ? params._meta : {}
  const token = meta.progressToken
  return {
    id: message.id, method: message.method, params, profile,
    // Capabilities were declared at initialize, which a stateless server does not remember.
    capabilities: {},
    progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
  }
}

const unsupported = (server: McpServer, requested: string, code: number = ERROR.UNSUPPORTED_VERSION) =>
  new McpError(code, `Unsupported protocol version: ${requested}`, { supported: server.versions, requested }, 400)
