import type { JsonRpcId } from '../protocol/jsonrpc.js'
import type { ServerCapabilities } from '../protocol/types.js'
import type { Asker, Notify } from '../server/context.js'
import type { McpServer } from '../server/server.js'
import type { Backplane } from '../state/backplane.js'
import type { UsedStates } from '../state/used-states.js'
import type { Call } from './call.js'
import type { Extension, ListenField, MethodDescriptor } from './method.js'
import type { Deadlines } from './deadlines.js'
import type { Secret, SecretSource, StateCodec } from './request-state.js'

/**
 * The services of one deployment that the exchange core itself uses; the extensions' own options
 * (tasks, resumable requests) are in RuntimeOptions (src/compose/runtime.ts), which turns them into extensions.
 */
export interface CoreOptions {
  /** How changes reach listen streams on every instance (default: within this process only). */
  backplane?: Backplane | undefined
  requestState?: {
    /**
     * HMAC key (at least 32 bytes). Every instance serving one server must share it; without one, a random
     * key per process is used, which only works while one process answers all rounds of a request. Or a
     * source of it, asked on first use: `redisSharedSecret` (mcp-edge/redis) makes one key for every
     * instance sharing a Redis, with nothing to configure.
     */
    secret?: Secret | SecretSource | undefined
    /** How long a client has to answer an input request (default 10 minutes). */
    ttlMs?: number | undefined
    /**
     * Encrypt the state too (AES-256-GCM, a key derived from the secret), for memos and answers the client
     * must not read; default false: sealed only, readable by the client.
     */
    encrypt?: boolean | undefined
    /**
     * Take each state once: a retry with a state already used is refused, so a captured state cannot be
     * replayed. `true` keeps used ids in this process's memory; several instances share a store
     * (`redisUsedStates`). Default false: a state may be retried until it expires.
     */
    singleUse?: boolean | UsedStates | undefined
  } | undefined
  listen?: {
    /** Longest a listen stream stays open before it is ended gracefully (default 1 hour; the client reopens it). */
    maxLifetimeMs?: number | undefined
    /** Open listen streams this runtime holds at most (default 10,000); over it, 503 with Retry-After. */
    maxStreams?: number | undefined
    /**
     * Open listen streams one client holds at most (default 100): one principal, or one network address
     * where requests are anonymous and the runtime knows it; over it, 429 with Retry-After.
     */
    maxStreamsPerClient?: number | undefined
    /** Characters of resource URIs one filter may name in all (default 65,536), besides at most 1,000 URIs. */
    maxFilterChars?: number | undefined
    /**
     * Whether the asker may follow changes of a resource (`resourceSubscriptions`); URIs it may not are left
     * out of the acknowledgement. Default: a resource or template match it may read (visible, in scope).
     */
    readable?: ((uri: string, asker: Asker) => boolean) | undefined
  } | undefined
  /**
   * Longest a request's handler runs before it is aborted and the request answered -32603 (default 5
   * minutes; Infinity for none). Listen streams have their own lifetime; work that takes longer belongs in a task.
   */
  handlerTimeoutMs?: number | undefined
  /** Of authorization, what the exchange core needs (the rest is HTTP's: HandlerOptions.auth). */
  auth?: {
    /** Leave entries the caller lacks scopes for out of lists (default false). */
    hideOutOfScope?: boolean | undefined
  } | undefined
  /**
   * Called once for every error the server cannot answer with a meaningful message: a handler's unexpected
   * exception, a failed publish or waitUntil, a backplane fault. The client sees only `errorId`. Default:
   * one line on stderr with the method and request id.
   */
  onError?: ((error: unknown, context: ErrorContext) => void) | undefined
  extensions?: readonly Extension[] | undefined
}

export interface ErrorContext {
  /**
   * Short id to find this entry by: the client was given it (in a tool's error text or a -32603 message)
   * when the error happened in its request.
   */
  readonly errorId?: string | undefined
  readonly method?: string | undefined
  readonly requestId?: JsonRpcId | undefined
  /** What failed outside a request's own handler: `publish`, `waitUntil`, `backplane`, ... */
  readonly during?: string | undefined
}

/** A server definition together with the services it runs with: what the exchange core works from. */
export interface Runtime {
  readonly server: McpServer
  readonly backplane: Backplane
  /** @internal */
  readonly requestState: StateCodec
  /** @internal */
  readonly requestStateTtlMs: number
  /** @internal Where used requestStates are recorded, when each may be used once. */
  readonly usedStates: UsedStates | undefined
  /** @internal */
  readonly maxListenMs: number
  /** @internal Time limits of running requests (handlerTimeoutMs). */
  readonly deadlines: Deadlines
  /** @internal Limits of listen streams, and the open streams per client that count against them. */
  readonly listenLimits: { readonly maxStreams: number; readonly maxStreamsPerClient: number; readonly maxFilterChars: number }
  /** @internal */
  readonly streamsByClient: Map<string, number>
  /** @internal Whether the asker may follow changes of a resource URI on a listen stream. */
  readonly readable: (uri: string, asker: Call) => boolean
  /** @internal Lists leave out entries the caller lacks scopes for. */
  readonly hideOutOfScope: boolean
  readonly notify: Notify
  readonly extensions: readonly Extension[]
  /** @internal */
  readonly listenFields: readonly ListenField[]
  /** The descriptor of a method in an era, if the method exists there. */
  method(era: 'modern' | 'legacy', name: string): MethodDescriptor<any> | undefined
  /** The server's capabilities with those of the extensions. */
  capabilities(): ServerCapabilities
  /** Hands an error to onError; returns the id to show the client. */
  report(error: unknown, context: Omit<ErrorContext, 'errorId'>): string
  /** @internal Ends of the open streams, so that shutdown can end each gracefully. */
  readonly streams: Set<() => void>
  /** Ends every open stream gracefully. */
  close(): Promise<void>
}
