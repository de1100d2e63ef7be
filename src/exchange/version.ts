import { DEFAULT_HEADERLESS_LEGACY, HEADER_MISMATCH, LATEST_LEGACY, META_CLIENT_INFO, META_PROTOCOL_VERSION, UNSUPPORTED_VERSION } from '../protocol/constants.js'
import { readEnvelope, type Envelope } from '../protocol/envelope.js'
import { invalidParams, McpError } from '../protocol/errors.js'
import { isObject, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import { PROFILES, type Profile } from '../protocol/profiles.js'
import type { McpServer } from '../server/server.js'

/** The version a request speaks, and its `_meta` envelope when it is a modern one. */
export interface Spoken {
  readonly profile: Profile
  readonly envelope: Envelope | undefined
}

const DATED = /^\d{4}-\d{2}-\d{2}$/

/**
 * Settles the version in the order the conformance suite requires: `_meta` fields (-32602), header against
 * the `_meta` version (-32020), version supported (-32022). Requests without the modern envelope (and, over
 * HTTP, without a modern version header) are the 2025 era's and are served as such.
 * `header`: the MCP-Protocol-Version header; null on transports that have no headers (stdio).
 */
export function spokenVersion(server: McpServer, message: JsonRpcRequest, header: string | undefined | null): Spoken {
  const params = message.params
  const metaVersion = params !== undefined && isObject(params._meta) ? params._meta[META_PROTOCOL_VERSION] : undefined
  const legacy = metaVersion === undefined && (header == null || (DATED.test(header) && header < '2026'))
  if (legacy) return { profile: served(server, legacyVersion(server, message, header)), envelope: undefined }

  const envelope = readEnvelope(params)
  const known = PROFILES.get(envelope.protocolVersion)
  // An error speaks the dialect of the version the request names: its body's if we know it, else its header's.
  const dialect = known?.era === 'modern' ? known : header ? PROFILES.get(header) : undefined
  if (header !== null && header !== envelope.protocolVersion) {
    const detail = header === undefined
      ? 'the required MCP-Protocol-Version header is missing'
      : `MCP-Protocol-Version header value '${header}' does not match body value '${envelope.protocolVersion}'`
    throw new McpError(dialect?.headerMismatchCode ?? HEADER_MISMATCH, `Header mismatch: ${detail}`)
  }
  if (known?.era !== 'modern') throw unsupported(server, envelope.protocolVersion, known?.unsupportedVersionCode)
  const profile = served(server, known.version)
  if (profile.requiresClientInfo && !envelope.clientInfo) {
    throw invalidParams(`Invalid request envelope: _meta["${META_CLIENT_INFO}"] is required by ${profile.version}`)
  }
  return { profile, envelope }
}

function served(server: McpServer, version: string): Profile {
  const profile = PROFILES.get(version)
  if (!profile || !server.versions.includes(version)) throw unsupported(server, version, profile?.unsupportedVersionCode)
  return profile
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
    const legacy = server.versions.filter((v) => PROFILES.get(v)?.era === 'legacy')
    // Any legacy version we serve can answer; with none, the error names the one asked for.
    return legacy.includes(asked) ? asked : (legacy[0] ?? asked)
  }
  if (header === null) return LATEST_LEGACY
  if (server.versions.includes(DEFAULT_HEADERLESS_LEGACY)) return DEFAULT_HEADERLESS_LEGACY
  throw new McpError(HEADER_MISMATCH, 'Header mismatch: the required MCP-Protocol-Version header is missing')
}

const unsupported = (server: McpServer, requested: string, code: number = UNSUPPORTED_VERSION) =>
  new McpError(code, `Unsupported protocol version: ${requested}`, { supported: server.versions, requested })
