import { DRAFT_V1, HEADER_MISMATCH, INVALID_PARAMS, LEGACY_VERSIONS, MISSING_CAPABILITY, UNSUPPORTED_VERSION, V2026 } from './constants.js'

/**
 * Everything that differs on the wire between the protocol versions we serve, as data: dispatch asks the
 * profile instead of comparing version strings (DIGEST §0.1).
 */
export interface Profile {
  readonly version: string
  /** modern = stateless `_meta` envelope; legacy = the 2025-era initialize handshake, answered statelessly. */
  readonly era: 'modern' | 'legacy'
  readonly headerMismatchCode: number
  readonly missingCapabilityCode: number
  readonly unsupportedVersionCode: number
  readonly requiresClientInfo: boolean
  /** The seed draft puts serverInfo in the discover body; the release puts it in every result's `_meta`. */
  readonly serverInfoInDiscoverBody: boolean
  readonly serverInfoInResultMeta: boolean
  /** `ttlMs` / `cacheScope` on discover, list and read results (SEP-2549). */
  readonly cacheFields: boolean
  /** The release ends a listen stream gracefully with a SubscriptionsListenResult; the seed just closed it. */
  readonly listenResult: boolean
  /** Methods that may answer with an `input_required` result. */
  readonly inputRequiredMethods: ReadonlySet<string>
  /**
   * How tasks are spoken: the io.modelcontextprotocol/tasks extension (flat results, ttlMs, polling), the
   * seed draft's core tasks (`params.task`, `{task}` results, ttl, tasks/result and tasks/list), or not at all.
   */
  readonly tasks: 'extension' | 'core' | undefined
}

const MRTR = new Set(['tools/call', 'prompts/get', 'resources/read'])

const released: Profile = {
  version: V2026,
  era: 'modern',
  headerMismatchCode: HEADER_MISMATCH,
  missingCapabilityCode: MISSING_CAPABILITY,
  unsupportedVersionCode: UNSUPPORTED_VERSION,
  requiresClientInfo: false,
  serverInfoInDiscoverBody: false,
  serverInfoInResultMeta: true,
  cacheFields: true,
  listenResult: true,
  inputRequiredMethods: MRTR,
  tasks: 'extension',
}

const seed: Profile = {
  ...released,
  version: DRAFT_V1,
  headerMismatchCode: -32001,
  missingCapabilityCode: -32003,
  unsupportedVersionCode: INVALID_PARAMS,
  requiresClientInfo: true,
  serverInfoInDiscoverBody: true,
  serverInfoInResultMeta: false,
  // SEP-2549 reached the draft right after the seed; its schema admits the fields, and its clients expect them.
  listenResult: false,
  tasks: 'core',
}

const legacy = (version: string): Profile => ({
  ...released,
  version,
  era: 'legacy',
  serverInfoInResultMeta: false,
  cacheFields: false,
  inputRequiredMethods: new Set(),
  tasks: undefined,
})

export const PROFILES: ReadonlyMap<string, Profile> = new Map(
  [released, seed, ...LEGACY_VERSIONS.map(legacy)].map((p) => [p.version, p]),
)

/** All versions this runtime can speak, newest first; a server may narrow it with its `versions` option. */
export const ALL_VERSIONS: readonly string[] = [...PROFILES.keys()]
