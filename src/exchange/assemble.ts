/** Builds a Runtime (src/exchange/types.ts) from the core's options and the extensions it is given. */
import { missingScopes, type McpServer } from '../server/server.js'
import { listChanged, memoryBackplane, resourceUpdated, type ChangeEvent } from '../state/backplane.js'
import { memoryUsedStates } from '../state/used-states.js'
import type { ServerCapabilities } from '../protocol/types.js'
import type { Call, CoreOptions, MethodDescriptor, Runtime } from './types.js'
import { logError, reporter } from './report.js'
import { deadlines } from './deadlines.js'
import { OpenStreams } from './open-streams.js'
import { encryptedStateCodec } from './encrypted-state.js'
import { CORE_LISTEN_FIELDS, listen } from './listen.js'
import { CORE_METHODS } from './methods/index.js'
import { resourceAt } from './methods/resources.js'
import { assertSecretLength, stateCodec } from './request-state.js'

const ERAS = ['modern', 'legacy'] as const

/** A resource or template match the asker may read, scopes and all: what a listen stream may follow by default. */
function readableResource(uri: string, asker: Call): boolean {
  const target = resourceAt(asker, uri)
  return target !== undefined && missingScopes(target, asker).length === 0
}

/**
 * The runtime of one server definition with the services it is given and the extensions it serves: what
 * the exchange core answers requests with. Entries build it through createRuntime (src/compose/runtime.ts),
 * which knows the extensions by name.
 */
export function assembleRuntime(server: McpServer, options: CoreOptions = {}): Runtime {
  const secret = options.requestState?.secret
  // Checked now, so that a short secret fails at start-up rather than on first use (a source's, when asked).
  if (typeof secret !== 'function') assertSecretLength(secret)
  const report = reporter(options.onError ?? logError, options.telemetry)
  const backplane = options.backplane ?? memoryBackplane({ onError: (e) => report(e, { during: 'listen delivery' }) })
  const publish = async (event: ChangeEvent) => {
    const traced = options.telemetry?.publish?.(event)
    try {
      await backplane.publish(traced?.event ?? event)
      traced?.end()
      return true
    } catch (e) {
      traced?.end(e)
      report(e, { during: 'publish' })
      return false
    }
  }
  const extensions = options.extensions ?? []
  const tables = { modern: new Map<string, MethodDescriptor<any>>(), legacy: new Map<string, MethodDescriptor<any>>() }
  for (const descriptor of [...CORE_METHODS, listen, ...extensions.flatMap((e) => e.methods ?? [])]) {
    for (const era of descriptor.eras ?? ERAS) tables[era].set(descriptor.method, descriptor)
  }
  for (const [name, wrap] of extensions.flatMap((e) => Object.entries(e.wraps ?? {}))) {
    for (const table of Object.values(tables)) {
      const inner = table.get(name)
      if (inner) table.set(name, wrap(inner))
    }
  }
  let base: ServerCapabilities | undefined
  let merged: ServerCapabilities | undefined
  const runtime: Runtime = {
    server,
    backplane,
    telemetry: options.telemetry,
    requestState: options.requestState?.encrypt ? encryptedStateCodec(secret) : stateCodec(secret),
    requestStateTtlMs: options.requestState?.ttlMs ?? 10 * 60_000,
    usedStates: options.requestState?.singleUse === true ? memoryUsedStates() : options.requestState?.singleUse || undefined,
    maxListenMs: options.listen?.maxLifetimeMs ?? 3_600_000,
    listenUnavailable: options.listen?.unavailable,
    deadlines: deadlines(options.handlerTimeoutMs ?? 300_000),
    listenLimits: {
      maxStreams: options.listen?.maxStreams ?? 10_000,
      maxStreamsPerClient: options.listen?.maxStreamsPerClient ?? 100,
      maxFilterChars: options.listen?.maxFilterChars ?? 65_536,
    },
    streamsByClient: new Map(),
    readable: options.listen?.readable ?? readableResource,
    hideOutOfScope: options.auth?.hideOutOfScope ?? false,
    notify: {
      toolsChanged: () => publish(listChanged('tools')),
      promptsChanged: () => publish(listChanged('prompts')),
      resourcesChanged: () => publish(listChanged('resources')),
      resourceUpdated: (uri) => publish(resourceUpdated(uri)),
    },
    extensions,
    listenFields: [...CORE_LISTEN_FIELDS, ...extensions.flatMap((e) => e.listen ?? [])],
    method: (era, name) => tables[era].get(name),
    capabilities() {
      const caps = server.capabilities()
      if (extensions.length === 0) return caps
      if (caps !== base) {
        base = caps
        const added = Object.fromEntries(extensions.filter((e) => e.capability !== null).map((e) => [e.id, e.capability ?? {}]))
        merged = Object.keys(added).length > 0 ? { ...caps, extensions: { ...caps.extensions, ...added } } : caps
      }
      return merged!
    },
    report,
    streams: new OpenStreams(options.requestTimers ?? false),
    async idle() {
      await Promise.all(extensions.map((e) => e.idle?.()))
    },
    async close() {
      runtime.streams.endAll()
      await Promise.all(extensions.map((e) => e.close?.(runtime)))
    },
  }
  return runtime
}
