/** Protocol version strings this runtime knows (DIGEST §2). */
export const V2026 = '2026-07-28'
export const DRAFT_V1 = 'DRAFT-2026-v1'
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const
export const LATEST_LEGACY = '2025-11-25'
/** Assumed for legacy HTTP requests that carry no MCP-Protocol-Version header (transports spec). */
export const DEFAULT_HEADERLESS_LEGACY = '2025-03-26'

/** Reserved `_meta` keys, one by one (see the error codes below for why) and as META. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

/** The tasks extension's id (SEP-2663): its capability key and the client's declaration. */
export const TASKS = 'io.modelcontextprotocol/tasks'
/** Resumable requests (the seed proposal): the client's capability and the server's experimental one. */
export const RESUMABLE = 'resumableRequests'

export const META = {
  protocolVersion: META_PROTOCOL_VERSION,
  clientInfo: META_CLIENT_INFO,
  clientCapabilities: META_CLIENT_CAPABILITIES,
  logLevel: META_LOG_LEVEL,
  subscriptionId: META_SUBSCRIPTION_ID,
  serverInfo: META_SERVER_INFO,
  progressToken: 'progressToken',
} as const

// Error codes one by one as well as in ERROR: a bundler inlines a constant, not an object's member.
export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603
export const HEADER_MISMATCH = -32020
export const MISSING_CAPABILITY = -32021
export const UNSUPPORTED_VERSION = -32022
/** In JSON-RPC's range for server errors: the spec has no code for "not now" (over HTTP: 429 or 503, Retry-After). */
export const OVERLOADED = -32000

export const ERROR = {
  PARSE: PARSE_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  INVALID_PARAMS,
  INTERNAL: INTERNAL_ERROR,
  HEADER_MISMATCH,
  MISSING_CAPABILITY,
  UNSUPPORTED_VERSION,
  OVERLOADED,
} as const

/** RFC 5424 severities, lowest first (logging utility). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version'
export const HEADER_METHOD = 'mcp-method'
export const HEADER_NAME = 'mcp-name'
export const HEADER_PARAM_PREFIX = 'mcp-param-'
/** The 2025 Streamable HTTP transport's session header (src/http/session/). */
export const HEADER_SESSION_ID = 'mcp-session-id'
