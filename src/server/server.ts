import { META } from '../protocol/constants.js'
import { paramHeaders, type ParamHeader } from '../protocol/headers.js'
import { isObject } from '../protocol/jsonrpc.js'
import { ALL_VERSIONS, PROFILES } from '../protocol/profiles.js'
import type {
  CachePolicy, ClientCapabilities, Implementation, Prompt, PromptArgument, Resource, ResourceTemplate,
  ServerCapabilities, Tool,
} from '../protocol/types.js'
import type {
  Completer, ListName, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  ResourceTemplateDefinition, TemplateHandler, ToolDefinition, ToolHandler,
} from './definitions.js'
import { memoryBackplane, type Backplane, type ChangeEvent } from '../state/backplane.js'
import { assertSecretLength, stateCodec, type Secret, type StateCodec } from './request-state.js'
import { assertObjectSchema, compileSchema, type CompiledSchema, type SchemaInput } from './schema.js'
import { parseUriTemplate, type UriTemplate } from './uri-template.js'

export interface ServerOptions extends Implementation {
  instructions?: string
  /** Items per page of every list (default 100). */
  pageSize?: number
  /** Caching hints (SEP-2549) per result kind; default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cache?: Partial<Record<ListName | 'discover' | 'read', CachePolicy>>
  /** Protocol versions to serve, a subset of 2026-07-28, DRAFT-2026-v1 and the 2025 legacy versions (default all). */
  versions?: string[]
  requestState?: {
    /**
     * HMAC key (at least 32 bytes). Every instance serving one server must share it; without one, a random
     * key per process is used, which only works while one process answers all rounds of a request.
     */
    secret?: Secret
    /** How long a client has to answer an input request (default 10 minutes). */
    ttlMs?: number
  }
  /** Extra capabilities to advertise (experimental, extensions); merged over the derived ones. */
  capabilities?: ServerCapabilities
  /** How changes reach listen streams on every instance (default: within this process only). */
  backplane?: Backplane
}

export interface ToolEntry {
  tool: Tool
  input?: CompiledSchema
  output?: CompiledSchema
  params: ParamHeader[]
  requires?: ClientCapabilities
  handler: ToolHandler<unknown>
  enabled: boolean
}

export interface PromptEntry {
  prompt: Prompt
  schema?: CompiledSchema
  /** Allowed values of enum arguments, for completion. */
  enums: Record<string, string[]>
  complete: Record<string, Completer>
  handler: PromptHandler<unknown>
  enabled: boolean
}

export interface ResourceEntry { resource: Resource; cache?: CachePolicy; handler: ResourceHandler; enabled: boolean }

export interface TemplateEntry {
  template: ResourceTemplate
  parsed: UriTemplate
  def: ResourceTemplateDefinition
  handler: TemplateHandler
  enabled: boolean
}

type Kind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate'
const LIST_OF: Record<Kind, ListName> = { tool: 'tools', prompt: 'prompts', resource: 'resources', resourceTemplate: 'resourceTemplates' }
const DEFAULT_CACHE: CachePolicy = { ttlMs: 0, cacheScope: 'private' }
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

/**
 * One MCP server definition: the registry of tools, resources, templates and prompts. It is built once and
 * shared by every request; list results are computed once per change, never per request.
 */
export class McpServer {
  readonly info: Implementation
  /** `_meta` naming this server, shared by every result that has no `_meta` of its own. */
  readonly infoMeta: Readonly<Record<string, Implementation>>
  readonly options: ServerOptions
  readonly versions: readonly string[]
  readonly requestStateTtlMs: number
  #requestState: StateCodec
  #ownSecret: boolean

  /** @internal */ readonly tools = new Map<string, ToolEntry>()
  /** @internal */ readonly prompts = new Map<string, PromptEntry>()
  /** @internal */ readonly resources = new Map<string, ResourceEntry>()
  /** @internal */ readonly templates = new Map<string, TemplateEntry>()

  readonly #lists = new Map<ListName, unknown[]>()
  readonly #listeners = new Set<(list: ListName) => void>()
  #backplane: Backplane
  #capabilities: ServerCapabilities | undefined
  /** Lists changed in this tick, published together once it ends. */
  readonly #pending = new Set<'tools' | 'prompts' | 'resources'>()

  /**
   * Tells every listen stream, on every instance sharing the backplane, that something changed; callable
   * from a handler or from outside any request (a webhook, a cron job). Registry changes publish on their own.
   */
  readonly notify = {
    toolsChanged: () => this.publish({ kind: 'list', list: 'tools' }),
    promptsChanged: () => this.publish({ kind: 'list', list: 'prompts' }),
    resourcesChanged: () => this.publish({ kind: 'list', list: 'resources' }),
    resourceUpdated: (uri: string) => this.publish({ kind: 'resource', uri }),
  }

  constructor(options: ServerOptions) {
    const { name, version, title, description, websiteUrl, icons } = options
    if (!name || !version) throw new Error('McpServer needs a name and a version')
    this.info = strip({ name, version, title, description, websiteUrl, icons })
    this.infoMeta = Object.freeze({ [META.serverInfo]: this.info })
    this.options = options
    const versions = options.versions ?? ALL_VERSIONS
    const unknown = versions.filter((v) => !PROFILES.has(v))
    if (unknown.length > 0 || versions.length === 0) {
      throw new Error(`versions must be a non-empty subset of ${ALL_VERSIONS.join(', ')} (got ${unknown.join(', ')})`)
    }
    this.versions = ALL_VERSIONS.filter((v) => versions.includes(v))
    if (options.pageSize !== undefined && !(Number.isInteger(options.pageSize) && options.pageSize > 0)) {
      throw new Error('pageSize must be a positive integer')
    }
    this.#ownSecret = options.requestState?.secret !== undefined
    this.#requestState = codecFor(options.requestState?.secret)
    this.requestStateTtlMs = options.requestState?.ttlMs ?? 10 * 60_000
    this.#backplane = options.backplane ?? memoryBackplane()
  }

  get backplane(): Backplane {
    return this.#backplane
  }

  /** @internal */
  get requestState(): StateCodec {
    return this.#requestState
  }

  /** Whether a requestState secret was configured (rather than a random key of this process). */
  get hasRequestStateSecret(): boolean {
    return this.#ownSecret
  }

  /**
   * Sets the requestState secret; for runtime adapters that read it from bindings only available once a
   * request arrives (Worker secrets). Every instance serving this server must use the same one.
   */
  useRequestStateSecret(secret: Secret): this {
    this.#requestState = codecFor(secret)
    this.#ownSecret = true
    return this
  }

  /** Swaps the backplane; for runtime adapters that can only build theirs once a request brings bindings. */
  useBackplane(backplane: Backplane): this {
    this.#backplane = backplane
    return this
  }

  /** Publishes a change; failures are logged, never thrown into the code that made the change. */
  async publish(event: ChangeEvent): Promise<void> {
    try {
      await this.#backplane.publish(event)
    } catch (e) {
      console.error('mcp-edge: publishing a change failed', e)
    }
  }

  tool<In extends SchemaInput | undefined = undefined, Out extends SchemaInput | undefined = undefined>(
    name: string,
    def: ToolDefinition<In, Out>,
    handler: ToolHandler<In>,
  ): this {
    if (!TOOL_NAME.test(name)) throw new Error(`tool name "${name}" must match ${TOOL_NAME}`)
    this.#assertFree(this.tools, 'tool', name)
    const where = `tool "${name}"`
    const input = def.input ? compileSchema(def.input, 'input', where, def.inputSchema) : undefined
    const inputSchema = input?.json ?? def.inputSchema ?? { type: 'object' }
    assertObjectSchema(inputSchema, `${where}: inputSchema`)
    const output = def.output ? compileSchema(def.output, 'output', where, def.outputSchema) : undefined
    if (output) assertObjectSchema(output.json, `${where}: outputSchema`)
    const params = paramHeaders(inputSchema, `${where} inputSchema`)
    const tool: Tool = strip({
      name, title: def.title, description: def.description, inputSchema, outputSchema: output?.json,
      annotations: def.annotations, icons: def.icons, _meta: def._meta,
    })
    this.tools.set(name, { tool, input, output, params, requires: def.requires, handler: handler as ToolHandler<unknown>, enabled: true })
    return this.#changed('tools')
  }

  prompt<A extends SchemaInput | PromptArgument[] | undefined = undefined>(
    name: string,
    def: PromptDefinition<A>,
    handler: PromptHandler<A>,
  ): this {
    this.#assertFree(this.prompts, 'prompt', name)
    const where = `prompt "${name}"`
    let args: PromptArgument[] | undefined
    let schema: CompiledSchema | undefined
    const enums: Record<string, string[]> = {}
    if (Array.isArray(def.args)) {
      args = def.args
    } else if (def.args) {
      schema = compileSchema(def.args, 'input', where)
      const json = schema.json
      const required = Array.isArray(json.required) ? (json.required as string[]) : []
      const props = isObject(json.properties) ? json.properties : {}
      args = Object.entries(props).map(([argName, prop]) => {
        const p = isObject(prop) ? prop : {}
        if (Array.isArray(p.enum)) enums[argName] = p.enum.map(String)
        return strip({
          name: argName,
          title: typeof p.title === 'string' ? p.title : undefined,
          description: typeof p.description === 'string' ? p.description : undefined,
          required: required.includes(argName) || undefined,
        })
      })
    }
    const prompt: Prompt = strip({ name, title: def.title, description: def.description, arguments: args, icons: def.icons, _meta: def._meta })
    this.prompts.set(name, { prompt, schema, enums, complete: def.complete ?? {}, handler: handler as PromptHandler<unknown>, enabled: true })
    return this.#changed('prompts')
  }

  resource(uri: string, def: ResourceDefinition, handler: ResourceHandler): this {
    try {
      new URL(uri)
    } catch {
      throw new Error(`resource "${uri}": not an absolute URI`)
    }
    this.#assertFree(this.resources, 'resource', uri)
    const { cache, ...meta } = def
    this.resources.set(uri, { resource: strip({ uri, ...meta }), cache, handler, enabled: true })
    return this.#changed('resources')
  }

  resourceTemplate(uriTemplate: string, def: ResourceTemplateDefinition, handler: TemplateHandler): this {
    this.#assertFree(this.templates, 'resource template', uriTemplate)
    const parsed = parseUriTemplate(uriTemplate)
    const { list, complete, cache, ...meta } = def
    for (const variable of Object.keys(complete ?? {})) {
      if (!parsed.variables.includes(variable)) throw new Error(`resource template "${uriTemplate}": cannot complete unknown variable "${variable}"`)
    }
    this.templates.set(uriTemplate, { template: strip({ uriTemplate, ...meta }), parsed, def, handler, enabled: true })
    this.#changedKind('resourceTemplate')
    return this
  }

  /** Removes a tool, prompt, resource (by URI) or resource template (by URI template); false if absent. */
  remove(kind: Kind, name: string): boolean {
    const removed = this.#map(kind).delete(name)
    if (removed) this.#changedKind(kind)
    return removed
  }

  /** Hides an entry from lists and calls without forgetting it; `enable` brings it back. */
  disable(kind: Kind, name: string): boolean {
    return this.#setEnabled(kind, name, false)
  }

  enable(kind: Kind, name: string): boolean {
    return this.#setEnabled(kind, name, true)
  }

  /** Called after every change to a list, with the list that changed. Returns an unsubscribe function. */
  onListChanged(listener: (list: ListName) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** @internal The enabled entries of a list, in registration order, computed once per change. */
  list<T>(name: ListName, build: () => T[]): T[] {
    let items = this.#lists.get(name)
    if (!items) this.#lists.set(name, (items = build()))
    return items as T[]
  }

  /** @internal */
  cachePolicy(kind: ListName | 'discover' | 'read'): CachePolicy {
    return this.options.cache?.[kind] ?? DEFAULT_CACHE
  }

  /** @internal The capabilities this definition has handlers for. */
  capabilities(): ServerCapabilities {
    return (this.#capabilities ??= this.#deriveCapabilities())
  }

  #deriveCapabilities(): ServerCapabilities {
    const caps: ServerCapabilities = {}
    if (this.tools.size > 0) caps.tools = { listChanged: true }
    if (this.prompts.size > 0) caps.prompts = { listChanged: true }
    if (this.resources.size > 0 || this.templates.size > 0) caps.resources = { subscribe: true, listChanged: true }
    if (this.prompts.size > 0 || this.templates.size > 0) caps.completions = {}
    caps.logging = {}
    return { ...caps, ...this.options.capabilities }
  }

  #map(kind: Kind): Map<string, { enabled: boolean }> {
    return { tool: this.tools, prompt: this.prompts, resource: this.resources, resourceTemplate: this.templates }[kind]
  }

  #setEnabled(kind: Kind, name: string, enabled: boolean): boolean {
    const entry = this.#map(kind).get(name)
    if (!entry) return false
    if (entry.enabled !== enabled) {
      entry.enabled = enabled
      this.#changedKind(kind)
    }
    return true
  }

  #changedKind(kind: Kind): void {
    this.#changed(LIST_OF[kind])
    // Templates may list concrete resources, so resources/list can change with them.
    if (kind === 'resourceTemplate') this.#changed('resources')
  }

  #assertFree(map: Map<string, unknown>, what: string, name: string): void {
    if (map.has(name)) throw new Error(`${what} "${name}" is already registered`)
  }

  #changed(list: ListName): this {
    this.#lists.delete(list)
    this.#capabilities = undefined
    for (const listener of this.#listeners) listener(list)
    // Template changes show in resources/list_changed: the protocol has no templates notification.
    const published = list === 'resourceTemplates' ? 'resources' : list
    if (this.#pending.size === 0) {
      queueMicrotask(() => {
        const lists = [...this.#pending]
        this.#pending.clear()
        for (const l of lists) void this.publish({ kind: 'list', list: l })
      })
    }
    this.#pending.add(published)
    return this
  }
}

function codecFor(secret: Secret | undefined): StateCodec {
  // Checked now, so that a short secret fails when the server is defined rather than on first use.
  assertSecretLength(secret)
  return stateCodec(secret)
}

/** Drops undefined members so that wire objects carry only what was given. */
export function strip<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key]
  return value
}
