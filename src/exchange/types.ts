/**
 * The exchange core's types: the runtime, the call a method works from, the transport under it, and method
 * descriptors and extensions. Types only, in one module, so that the core's modules import them without
 * importing each other (test/architecture/layers.test.ts checks there is no cycle).
 */
import type { LogLevel } from '../protocol/constants.js'
import type { McpError } from '../protocol/errors.js'
import type { ParamHeader } from '../protocol/headers.js'
import type { JsonObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { Profile } from '../protocol/profiles.js'
import type { ClientCapabilities, Implementation, InputRequest, ServerCapabilities } from '../protocol/types.js'
import type { Asker, AuthInfo, Notify } from '../server/context.js'
import type { McpServer } from '../server/server.js'
import type { Backplane, ChangeEvent, Resync } from '../state/backplane.js'
import type { TaskStore } from '../state/tasks.js'
import type { UsedStates } from '../state/used-states.js'
import type { Cancellation } from './cancellation.js'
import type { Deadlines } from './deadlines.js'
import type { OpenStreams } from './open-streams.js'
import type { Secret, SecretSource, StateCodec } from './request-state.js'

/**
 * The services of one deployment that the exchange core itself uses; RuntimeOptions (src/compose/runtime.ts)
 * adds what the extensions are built with.
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
    /**
     * Why listen streams cannot work where this runtime serves: set, `subscriptions/listen` is refused with
     * it (-32600) rather than acknowledged and never told of a change. createLambdaHandler sets it when no
     * shared backplane is given (an instance serves one request at a time, so no other call's change
     * reaches a stream held in its memory).
     */
    unavailable?: string | undefined
  } | undefined
  /**
   * @internal Timers belong to the request that set them (Workers: cancelled with it, and kept from another
   * request's I/O): each listen stream then keeps a lifetime timer of its own instead of sharing one.
   */
  requestTimers?: boolean | undefined
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
  /**
   * Watches every request from its start to its answer (a stream's: to its end): `openTelemetry()` from
   * `mcp-edge/otel` makes spans and metrics of them. Default: none, and nothing is spent on watching.
   */
  telemetry?: Telemetry | undefined
  extensions?: readonly Extension[] | undefined
}

/**
 * Where a request failed, which is what its HTTP status depends on (src/http/status.ts): `envelope` (the
 * request is malformed: envelope, version, headers), `route` (no such method here, or the client lacks a
 * capability it needs) or `method` (the method ran and answered an error).
 */
export type Stage = 'envelope' | 'route' | 'method'

/** How the exchange core answered one request. */
export type Answer =
  | { readonly ok: true; readonly id: JsonRpcId; readonly profile: Profile; readonly result: JsonObject | undefined }
  | { readonly ok: false; readonly id: JsonRpcId; readonly profile: Profile | undefined; readonly stage: Stage; readonly error: McpError }

/**
 * What a request names, as far as the server knows it (src/exchange/request-names.ts): its method, the tool
 * or prompt it calls, the version it asks for, each `_OTHER` where the server has no such thing.
 */
export interface RequestNames {
  readonly method: string
  readonly target?: string | undefined
  readonly version?: string | undefined
}

/** Watches requests: given each as it arrives, it may follow it to its answer (src/otel/ is one). */
export interface Telemetry {
  /**
   * A request arrives (not yet validated); undefined when this one is not watched. Metric attributes and span
   * names come from `names` alone: the message's own strings are the client's to choose.
   */
  request(message: JsonRpcRequest, transport: Transport, names: RequestNames): RequestWatch | undefined
  /**
   * Sends on what was recorded. Called after each request where the platform may freeze the instance once
   * it has answered (the transport has `waitUntil`: Workers, Lambda), and handed to `waitUntil`.
   */
  flush?(): Promise<void>
  /** The trace and span the caller runs in, if one is recorded: errors reported there carry them (ErrorContext). */
  current?(): { readonly traceId: string; readonly spanId: string } | undefined
  /** The caller's trace context as a W3C traceparent: kept with durable work it starts (a task), to link back to. */
  traceparent?(): string | undefined
  /**
   * Watches a run of durable work (a task's handler), maybe in another process long after the request that
   * made it, whose traceparent `link` is. `end` takes the error type, if it failed.
   */
  work?(name: string, attributes: Readonly<Record<string, string>>, link: string | undefined): WorkWatch | undefined
  /**
   * A change is about to be published: what is sent instead (the change with its trace context, so that
   * deliveries can link to it), and what hears how the publish went.
   */
  publish?(event: ChangeEvent): { readonly event: ChangeEvent; end(error?: unknown): void } | undefined
  /**
   * A task entered a status (`task`: `mcp.task.status`), a token was refused (`token`: `error.type`,
   * `http.response.status_code`), or a request was refused over a limit before its method was known
   * (`refusal`: `mcp.refusal.fault`, `mcp.refusal.limit`: the body's size, or the bodies held at once).
   */
  count?(what: 'task' | 'token' | 'refusal', attributes: Readonly<Record<string, string | number>>): void
}

/** One run of durable work being watched. */
export interface WorkWatch {
  run<T>(fn: () => T): T
  end(errorType: string | undefined): void
}

/** One request being watched. */
export interface RequestWatch {
  /** Runs the request's method inside the watch: work the handler starts is the request's (a child span). */
  run<T>(fn: () => T): T
  /** The request was answered (a stream: it ended). */
  end(answer: Answer): void
  /** A listen stream was sent a change (or a refetch cue after a possible gap). */
  delivered?(event: ChangeEvent | Resync): void
  /** Which round of a multi-round-trip request this is (1: the first, without a requestState). */
  round?(number: number): void
}

export interface ErrorContext {
  /**
   * Short id to find this entry by: the client was given it (in a tool's error text or a -32603 message)
   * when the error happened in its request.
   */
  readonly errorId?: string | undefined
  readonly method?: string | undefined
  /** The tool called, when the error happened in a tools/call (or its task). */
  readonly tool?: string | undefined
  readonly requestId?: JsonRpcId | undefined
  /** What failed outside a request's own handler: `publish`, `waitUntil`, `backplane`, ... */
  readonly during?: string | undefined
  /** The trace and span the error happened in, when telemetry traces it: what joins this entry to its trace. */
  readonly traceId?: string | undefined
  readonly spanId?: string | undefined
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
  /** @internal Why listen is refused here, if it is (RuntimeOptions.listen.unavailable). */
  readonly listenUnavailable: string | undefined
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
  /** @internal What watches requests, if anything does (CoreOptions.telemetry). */
  readonly telemetry: Telemetry | undefined
  /** @internal */
  readonly listenFields: readonly ListenField[]
  /** The descriptor of a method in an era, if the method exists there. */
  method(era: 'modern' | 'legacy', name: string): MethodDescriptor<any> | undefined
  /** The server's capabilities with those of the extensions. */
  capabilities(): ServerCapabilities
  /** Hands an error to onError; returns the id to show the client. */
  report(error: unknown, context: Omit<ErrorContext, 'errorId'>): string
  /** @internal The open listen streams: each ended at its time, and all of them at shutdown. */
  readonly streams: OpenStreams
  /**
   * Resolves once no work the extensions run in this process outside a request (tasks' runners) is left: a
   * shutdown waits for it within its grace period, then calls `close`.
   */
  idle(): Promise<void>
  /** Ends every open stream gracefully, and what the extensions still run here (tasks running here fail). */
  close(): Promise<void>
}

/** What a transport hands the exchange core besides the message. */
export interface Transport {
  /** The MCP-Protocol-Version header; null on transports that have no headers (stdio). */
  readonly versionHeader: string | undefined | null
  /** Reads a request header; absent where there are no headers, and the header rules do not apply. */
  readonly header?: ((name: string) => string | null) | undefined
  readonly cancel: Cancellation
  /**
   * Where notifications before the result go (the request's SSE stream, or stdout); `eventId` numbers it
   * where the transport has event ids (SSE), so that a client can say what it has (Last-Event-ID).
   */
  readonly emit: (message: JsonRpcNotification, eventId?: string) => void
  /** The authenticated principal: lists may depend on it, and requestState, tasks and streams are bound to it. */
  readonly principal?: string | undefined
  /** The verified token's identity and scopes, when requests are authenticated. */
  readonly auth?: AuthInfo | undefined
  /** The client's network address, where the runtime knows it: whose share of limits an anonymous request uses. */
  readonly clientAddress?: string | undefined
  readonly request?: Request | undefined
  readonly env?: unknown
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined
  /** When the platform ends the request whatever happens (ms since the epoch): streams end gracefully by then. */
  readonly deadline?: number | undefined
  /**
   * The response is delivered whole (Lambda behind an HTTP API or ALB): notifications before the result
   * are dropped and methods that stream are refused.
   */
  readonly buffered?: boolean | undefined
  /**
   * The transport keeps 2025 sessions (src/http/session/): it issues one at `initialize`, carries change
   * notifications on a session's own stream, and can ask the client something mid-request.
   */
  readonly keepsSessions?: boolean | undefined
  /** The 2025 session the request belongs to, if it names one. */
  readonly session?: Session | undefined
}

/**
 * A 2025 client's session: what its requests do not carry themselves (the client's capabilities, its log
 * level), and the way to ask the client something while a request runs. Modern requests carry all of it.
 */
export interface Session {
  /** What the client declared in `initialize`. */
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
  /** What `logging/setLevel` set for the session, if anything. */
  readonly logLevel: LogLevel | undefined
  setLevel(level: LogLevel): Promise<void>
  /** `resources/subscribe` (`on`) and `resources/unsubscribe`. */
  subscribe(uri: string, on: boolean): Promise<void>
  /**
   * Sends the requests to the client (over HTTP, on this request's stream) and resolves with its results,
   * in order; rejects with the client's error, or once `signal` (the request's) aborts.
   */
  ask(requests: readonly InputRequest[], signal: AbortSignal): Promise<unknown[]>
}

/** One request past envelope validation: what methods work from. It is also the Asker of visibility checks. */
export interface Call extends Asker {
  readonly id: JsonRpcId
  readonly method: string
  readonly params: JsonObject
  readonly profile: Profile
  readonly client: { readonly info?: Implementation | undefined; readonly capabilities: ClientCapabilities }
  readonly logLevel?: LogLevel | undefined
  readonly progressToken?: string | number | undefined
  readonly runtime: Runtime
  readonly transport: Transport
  /** @internal What watches this request, when telemetry does (a listen stream tells it of deliveries). */
  readonly watch?: RequestWatch | undefined
}

/**
 * One method of the protocol, as data: the exchange core validates every request the same way and asks the
 * descriptor only what differs (exchange.ts). `T` is what the method works on (a tool entry, say), looked
 * up once and handed to both the header check and `run`.
 */
export interface MethodDescriptor<T = unknown> {
  readonly method: string
  /** The protocol eras that have it: modern (the stateless `_meta` envelope), legacy (2025); default both. */
  readonly eras?: readonly ('modern' | 'legacy')[] | undefined
  /** Whether this server serves it (say, has tools); when not, the method does not exist (-32601). */
  readonly served?: ((runtime: Runtime) => boolean) | undefined
  /** The params member that the `Mcp-Name` header must repeat (SEP-2243). */
  readonly nameParam?: 'name' | 'uri' | 'taskId' | ((profile: Profile) => 'taskId' | undefined) | undefined
  /** What the method works on, looked up once; may throw (an unknown tool is -32602). */
  readonly target?: ((call: Call) => T) | undefined
  /** The arguments that `Mcp-Param-*` headers must repeat, and where in params they are. */
  readonly paramHeaders?: ((target: T) => { readonly headers: readonly ParamHeader[]; readonly args: JsonObject }) | undefined
  /** OAuth scopes the request must have been granted for what it works on (InsufficientScope, 403, when not). */
  readonly scopes?: ((target: T) => readonly string[] | undefined) | undefined
  /** Client capabilities the request must have declared (-32021 with the missing ones when not). */
  readonly clientNeeds?: ((call: Call, target: T) => ClientCapabilities | undefined) | undefined
  /**
   * Runs the request to its result. A method may send notifications before it (`call.emit`): over HTTP
   * the first one turns the response into an SSE stream. `undefined` ends a stream without a result.
   */
  readonly run: (call: Call, target: T) => Promise<JsonObject | undefined>
  /**
   * Runs until the client leaves or the server ends it (listen). Over stdio, its end by the server is told
   * with `notifications/cancelled`, not a result; shutdown ends it rather than waiting for it.
   */
  readonly stream?: boolean | undefined
}

/**
 * A member of the `subscriptions/listen` filter (`params.notifications`): what a client may ask for, which
 * backplane topics it watches and what an event on them becomes.
 */
export interface ListenField {
  readonly key: string
  /**
   * The value as honoured (echoed in the acknowledgement) and its topics; undefined when not asked for or
   * not supported. Throws -32602 for a value of the wrong shape.
   */
  honour(value: unknown, call: Call): { value: unknown; topics: string[] } | undefined
  /** The notifications an event on one of its topics becomes; a resync (`event` undefined) cues a refetch of all. */
  notifications(event: ChangeEvent | undefined, honoured: unknown, asker: ListenAsker): { method: string; params?: JsonObject }[]
}

/** Who holds a listen stream, as its fields' notifications see it. */
export type ListenAsker = Pick<Call, 'principal' | 'profile'>

/**
 * An extension (capability key under `capabilities.extensions`): its methods, the `_meta` keys it reads
 * and the listen filter fields it adds, all without changes to the core. A method of the same name as a
 * core one takes its place.
 */
export interface Extension {
  /** e.g. `io.modelcontextprotocol/tasks` */
  readonly id: string
  /**
   * Advertised as `capabilities.extensions[id]` (default `{}`); `null` for one advertised otherwise (an
   * experimental capability, through `advertise`).
   */
  readonly capability?: JsonObject | null | undefined
  readonly methods?: readonly MethodDescriptor<any>[] | undefined
  /**
   * Methods it wraps rather than replaces, by name: given what serves the method without it (a core method,
   * or another extension's), it returns what serves it now, usually handing most requests on.
   */
  readonly wraps?: Readonly<Record<string, (inner: MethodDescriptor<any>) => MethodDescriptor<any>>> | undefined
  /** Checks of `_meta` keys it reads, by key: a message makes the request malformed (-32602, HTTP 400). */
  readonly meta?: Readonly<Record<string, (value: unknown) => string | undefined>> | undefined
  readonly listen?: readonly ListenField[] | undefined
  /**
   * The capabilities as `server/discover` shows them at a version where the extension is spoken otherwise
   * (the seed draft's core tasks have a `tasks` capability instead of an extension).
   */
  advertise?(capabilities: ServerCapabilities, profile: Profile): ServerCapabilities
  /** Where it keeps durable records, if it keeps any: named by its `kind` in the start-up line (src/http/summary.ts). */
  readonly store?: { readonly kind?: string | undefined } | undefined
  /** Resolves once the work it runs in this process has ended (Runtime.idle): what a shutdown's grace period waits for. */
  idle?(): Promise<void>
  /** Called by the runtime's close (shutdown, once its grace period is over): work the extension runs in this process ends. */
  close?(runtime: Runtime): Promise<void>
}

/**
 * An extension made anew for every runtime it serves in (a Worker's, each task Durable Object's), with the
 * deployment's store for durable work: what `tasks()` and `resumable()` are. Its state (running work, the
 * store it writes) belongs to one runtime, so a deployment hands out plans, not built extensions.
 */
export interface ExtensionPlan {
  readonly id: string
  /** Its own store, when it was given one: then the deployment's is not used. */
  readonly store?: TaskStore | undefined
  /** The extension for one runtime; `store` is the deployment's (RuntimeOptions.store), if it has one. */
  build(store: TaskStore | undefined): Extension
}
