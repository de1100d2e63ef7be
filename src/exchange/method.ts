import type { JsonObject } from '../protocol/jsonrpc.js'
import type { ParamHeader } from '../protocol/headers.js'
import type { Profile } from '../protocol/profiles.js'
import type { ClientCapabilities, ServerCapabilities } from '../protocol/types.js'
import type { ChangeEvent } from '../state/backplane.js'
import type { Call } from './call.js'
import type { Runtime } from './runtime.js'

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
  notifications(event: ChangeEvent | undefined, honoured: unknown, call: Call): { method: string; params?: JsonObject }[]
}

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
  /** Called by the runtime's close (shutdown): work the extension runs in this process ends. */
  close?(runtime: Runtime): Promise<void>
}
