import type { JsonObject } from '../protocol/jsonrpc.js'
import type {
  CachePolicy, CallToolResult, ClientCapabilities, CompleteResult, ContentBlock, GetPromptResult, Icon,
  Meta, PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents, ToolAnnotations,
} from '../protocol/types.js'
import type { Asker, RequestContext } from './context.js'
import type { Infer, SchemaInput } from './schema.js'

type MaybePromise<T> = T | Promise<T>

/**
 * Whether an entry is shown to whoever asks (principal, client): hidden ones are absent from lists and
 * unknown to calls, for that asker only. Lists with hidden entries are marked `cacheScope: "private"`.
 */
export type Visibility = (asker: Asker) => boolean

/**
 * OAuth scopes a request must have been granted to use an entry; without them it gets 403
 * `insufficient_scope` naming every scope it needs, so that the client can ask the user for more. An entry
 * with scopes exists only where requests are authenticated (the `auth` option): elsewhere it is hidden.
 */
export type Scopes = readonly string[]

/** What a tool handler may return: text, content blocks, a structured value, or the whole result. */
export type ToolReturn = string | ContentBlock[] | CallToolResult | JsonObject | void

export interface ToolDefinition<In extends SchemaInput | undefined = SchemaInput | undefined, Out extends SchemaInput | undefined = SchemaInput | undefined> {
  title?: string | undefined
  description?: string | undefined
  /** Arguments: a Standard Schema (zod 4, valibot, ...) or a JSON Schema object with `"type": "object"`. */
  input?: In | undefined
  /** The JSON Schema to advertise when `input` is a Standard Schema that cannot describe itself. */
  inputSchema?: JsonObject | undefined
  /** Shape of `structuredContent`; results are checked against it. */
  output?: Out | undefined
  outputSchema?: JsonObject | undefined
  annotations?: ToolAnnotations | undefined
  icons?: Icon[] | undefined
  _meta?: Meta | undefined
  /** Client capabilities the tool cannot run without; a request that lacks them gets -32021 before it runs. */
  requires?: ClientCapabilities | undefined
  visible?: Visibility | undefined
  scopes?: Scopes | undefined
  /**
   * Whether a call runs as a task (the io.modelcontextprotocol/tasks extension): `optional` when the client
   * declared the extension, plain otherwise; `required` always, refusing clients without it (-32021).
   * Default: never. The handler then runs in a task runner, not in the request (see the README).
   */
  task?: 'optional' | 'required' | undefined
  /**
   * Runs in the request before a task is made, and may ask for input there (over multi-round-trip
   * requests): what must be settled before the work is accepted. Its answers and memos are carried into
   * the task, where asking the same keys again returns them at once. What it returns is ignored.
   */
  beforeTask?: ToolHandler<In> | undefined
}

export type ToolHandler<In> = (args: Infer<In>, ctx: RequestContext) => MaybePromise<ToolReturn>

/** What a resource handler returns; `undefined` when the resource does not exist (-32602). */
export type ResourceReturn = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult

/** What `resources/list` shows of a resource (its URI is given apart), and how it is served. */
export interface ResourceDefinition extends Omit<Resource, 'uri'> {
  /** Caching hints for `resources/read` of this resource. */
  cache?: CachePolicy | undefined
  visible?: Visibility | undefined
  scopes?: Scopes | undefined
}

export type ResourceHandler = (uri: string, ctx: RequestContext) => MaybePromise<ResourceReturn | undefined>

export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; ctx: RequestContext },
) => MaybePromise<string[] | CompleteResult['completion']>

export interface ResourceTemplateDefinition extends Omit<ResourceDefinition, 'size'> {
  /** Lists concrete resources of this template in `resources/list`. */
  list?: ((ctx: RequestContext) => MaybePromise<Resource[]>) | undefined
  /** Completion of template variables, by variable name. */
  complete?: Record<string, Completer> | undefined
}

export type TemplateHandler = (uri: string, variables: Record<string, string>, ctx: RequestContext) => MaybePromise<ResourceReturn | undefined>

export type PromptReturn = string | PromptMessage[] | GetPromptResult

export interface PromptDefinition<Args extends SchemaInput | PromptArgument[] | undefined = SchemaInput | PromptArgument[] | undefined> {
  title?: string | undefined
  description?: string | undefined
  /** Arguments as a list, or as an object schema of string properties (Standard Schema or JSON Schema). */
  args?: Args | undefined
  icons?: Icon[] | undefined
  _meta?: Meta | undefined
  /** Completion of argument values, by argument name (enum arguments complete on their own). */
  complete?: Record<string, Completer> | undefined
  visible?: Visibility | undefined
  scopes?: Scopes | undefined
}

export type PromptArgs<A> = A extends PromptArgument[] ? Record<string, string> : A extends SchemaInput ? Infer<A, Record<string, string>> : Record<string, string>

export type PromptHandler<A> = (args: PromptArgs<A>, ctx: RequestContext) => MaybePromise<PromptReturn>

export type ListName = 'tools' | 'prompts' | 'resources' | 'resourceTemplates'
