import { META_SERVER_INFO } from '../protocol/constants.js'
import { paramHeaders, type ParamHeader } from '../protocol/headers.js'
import { isObject } from '../protocol/jsonrpc.js'
import { ALL_VERSIONS, PROFILES } from '../protocol/profiles.js'
import type {
  CachePolicy, ClientCapabilities, Implementation, Prompt, PromptArgument, Resource, ResourceTemplate,
  ServerCapabilities, Tool,
} from '../protocol/types.js'
import type { Asker } from './context.js'
import type {
  Completer, ListName, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  ResourceTemplateDefinition, Scopes, TemplateHandler, ToolDefinition, ToolHandler, Visibility,
} from './definitions.js'
import { assertObjectSchema, compileSchema, type CompiledSchema, type SchemaInput } from './schema.js'
import { parseUriTemplate, type UriTemplate } from './uri-template.js'

export interface ServerOptions extends Implementation {
  instructions?: string | undefined
  /** Items per page of every list (default 100). */
  pageSize?: number | undefined
  /** Caching hints (SEP-2549) per result kind; default `{ ttlMs: 0, cacheScope: 'private' }`. */
  cache?: Partial<Record<ListName | 'discover' | 'read', CachePolicy>> | undefined
  /** Protocol versions to serve, a subset of 2026-07-28, DRAFT-2026-v1 and the 2025 legacy versions (default all). */
  versions?: string[] | undefined
  /** Extra capabilities to advertise (experimental); merged over the derived ones. */
  capabilities?: ServerCapabilities | undefined
}

interface Entry {
  enabled: boolean
  visible: Visibility | undefined
  /** OAuth scopes a request needs to use it; undefined when it needs none. */
  scopes: Scopes | undefined
}

export interface ToolEntry extends Entry {
  tool: Tool
  input: CompiledSchema | undefined
  output: CompiledSchema | undefined
  params: ParamHeader[]
  requires: ClientCapabilities | undefined
  handler: ToolHandler<unknown>
  task: 'optional' | 'required' | undefined
  beforeTask: ToolHandler<unknown> | undefined
}

export interface PromptEntry extends Entry {
  prompt: Prompt
  schema: CompiledSchema | undefined
  /** Allowed values of enum arguments, for completion. */
  enums: Record<string, string[]>
  complete: Record<string, Completer>
  handler: PromptHandler<unknown>
}

export interface ResourceEntry extends Entry { resource: Resource; cache: CachePolicy | undefined; handler: ResourceHandler }

export interface TemplateEntry extends Entry {
  template: ResourceTemplate
  parsed: UriTemplate
  def: ResourceTemplateDefinition
  handler: TemplateHandler
}

export interface Entries { tool: ToolEntry; prompt: PromptEntry; resource: ResourceEntry; resourceTemplate: TemplateEntry }
export type Kind = keyof Entries

const LIST_OF = { tool: 'tools', prompt: 'prompts', resource: 'resources', resourceTemplate: 'resourceTemplates' } as const satisfies Record<Kind, ListName>
/** What each kind of entry looks like in its list result. */
export interface Wire { tool: Tool; prompt: Prompt; resource: Resource; resourceTemplate: ResourceTemplate }
const WIRE: { [K in Kind]: (e: Entries[K]) => Wire[K] } = {
  tool: (e) => e.tool,
  prompt: (e) => e.prompt,
  resource: (e) => e.resource,
  resourceTemplate: (e) => e.template,
}
const KIND_OF: Partial<Record<string, Kind>> = { tools: 'tool', prompts: 'prompt', resources: 'resource', resourceTemplates: 'resourceTemplate' }
const DEFAULT_CACHE: CachePolicy = { ttlMs: 0, cacheScope: 'private' }
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
/** RFC 6749 §3.3 scope-token: what may stand between the spaces of a `scope` value or challenge. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

function scopesOf(scopes: Scopes | undefined, where: string): Scopes | undefined {
  if (scopes === undefined) return undefined
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new Error(`${where}: scopes must be an array of OAuth scope tokens (printable ASCII without spaces, quotes or backslashes)`)
  }
  return scopes.length > 0 ? Object.freeze([...new Set(scopes)]) : undefined
}

/** Whether an entry is there for the asker: enabled, authenticated if it has scopes, and visible to it. */
const shown = (entry: Entry, asker: Asker) => entry.enabled && (!entry.scopes || asker.auth !== undefined) && (!entry.visible || entry.visible(asker))

/** The scopes of `entry` that the asker was not granted (none when it needs none). */
export function missingScopes(entry: { scopes: Scopes | undefined }, asker: Asker): string[] {
  if (!entry.scopes) return []
  const granted = asker.auth?.scopes ?? []
  return entry.scopes.filter((s) => !granted.includes(s))
}

/**
 * One MCP server definition: who it is and its tools, resources, templates and prompts. It knows nothing of
 * where it runs: the backplane, the requestState secret and the other services of a deployment are given to
 * the runtime entry that serves it (createFetchHandler, serve, createWorker), never set on it, so one
 * definition can be served by several entries at once.
 *
 * Registering, removing, disabling after requests have begun changes this instance only: other instances
 * of the same server keep their lists. Lists that differ by who asks use `visible` predicates instead; a
 * change every instance must hear of goes through the runtime's `notify`.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0', instructions: 'Ask for a city.' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * await serve(server)   // http://127.0.0.1:3000/mcp
 * ```
 */
export class McpServer {
  /** Who it is, as `serverInfo` shows it: name, version, title, description, website, icons. */
  readonly info: Implementation
  /** @internal `_meta` naming this server, shared by every result that has no `_meta` of its own. */
  readonly infoMeta: Readonly<Record<string, Implementation>>
  /** The options it was made with. */
  readonly options: ServerOptions
  /** The protocol versions it serves. */
  readonly versions: readonly string[]

  readonly #entries: { [K in Kind]: Map<string, Entries[K]> } = {
    tool: new Map(), prompt: new Map(), resource: new Map(), resourceTemplate: new Map(),
  }
  /** Wire lists of the kinds nobody hides entries of, computed once per change. */
  readonly #lists = new Map<Kind, unknown[]>()
  /** The kinds with an entry shown to some askers only. */
  readonly #hiding = new Set<Kind>()
  readonly #listeners = new Set<(list: ListName) => void>()
  #capabilities: ServerCapabilities | undefined

  constructor(options: ServerOptions) {
    const { name, version, title, description, websiteUrl, icons } = options
    if (!name || !version) throw new Error('McpServer needs a name and a version')
    this.info = strip({ name, version, title, description, websiteUrl, icons })
    this.infoMeta = Object.freeze({ [META_SERVER_INFO]: this.info })
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
  }

  /**
   * Registers a tool. `def.input` is a Standard Schema (zod 4, valibot, ...) or a JSON Schema object; the
   * handler gets the arguments it parsed (typed when the schema is) and the request context, and returns
   * text, content blocks, a structured value or the whole result. A ToolError it throws reaches the model as
   * an `isError` result; any other exception goes to `onError` and the client gets an id. `task` runs it as
   * a task, `scopes` and `visible` say who may use it. Throws if the name is taken or the definition is wrong.
   *
   * @example
   * ```ts
   * import { McpServer, ToolError } from 'mcp-edge'
   * import * as z from 'zod'
   *
   * export const server = new McpServer({ name: 'weather', version: '1.0.0' })
   *   .tool('get_weather', { description: 'Current weather for a city', input: z.object({ city: z.string() }) },
   *     async ({ city }, ctx) => {
   *       if (city.trim() === '') throw new ToolError('Name a city')   // the model reads this and can retry
   *       ctx.progress(1, 2)
   *       return `Sunny in ${city}`
   *     })
   * ```
   */
  tool<In extends SchemaInput | undefined = undefined, Out extends SchemaInput | undefined = undefined>(
    name: string,
    def: ToolDefinition<In, Out>,
    handler: ToolHandler<In>,
  ): this {
    if (!TOOL_NAME.test(name)) throw new Error(`tool name "${name}" must match ${TOOL_NAME}`)
    this.#assertFree('tool', name)
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
    if (def.task !== undefined && def.task !== 'optional' && def.task !== 'required') throw new Error(`${where}: task must be 'optional' or 'required'`)
    if (def.beforeTask && !def.task) throw new Error(`${where}: beforeTask needs task 'optional' or 'required'`)
    const entry: ToolEntry = {
      tool, input, output, params, requires: def.requires, handler: handler as ToolHandler<unknown>, enabled: true, visible: def.visible,
      scopes: scopesOf(def.scopes, where), task: def.task, beforeTask: def.beforeTask as ToolHandler<unknown> | undefined,
    }
    return this.#add('tool', name, entry)
  }

  /**
   * Registers a prompt. `def.args` lists its arguments, or is an object schema of string properties whose
   * values the handler gets parsed; enum arguments complete on their own, others through `def.complete`. The
   * handler returns text (one user message), messages, or the whole result.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   * import * as z from 'zod'
   *
   * export const server = new McpServer({ name: 'reviews', version: '1.0.0' })
   *   .prompt('review', {
   *     description: 'Review code',
   *     args: z.object({ language: z.enum(['ts', 'py']), code: z.string() }),   // or [{ name: 'code', required: true }]
   *   }, ({ language, code }) => `Review this ${language}:\n${code}`)
   * ```
   */
  prompt<A extends SchemaInput | PromptArgument[] | undefined = undefined>(
    name: string,
    def: PromptDefinition<A>,
    handler: PromptHandler<A>,
  ): this {
    this.#assertFree('prompt', name)
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
    return this.#add('prompt', name, {
      prompt, schema, enums, complete: def.complete ?? {}, handler: handler as PromptHandler<unknown>, enabled: true, visible: def.visible,
      scopes: scopesOf(def.scopes, where),
    })
  }

  /**
   * Registers a resource at an absolute URI. The handler returns text, bytes, contents, or the whole
   * result, and undefined when it does not exist after all (-32602); `def.cache` gives `resources/read`
   * its caching hints.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   *
   * export const server = new McpServer({ name: 'docs', version: '1.0.0' })
   *   .resource('file:///readme', { name: 'readme', mimeType: 'text/markdown', cache: { ttlMs: 60_000, cacheScope: 'public' } },
   *     () => '# Hello')
   * ```
   */
  resource(uri: string, def: ResourceDefinition, handler: ResourceHandler): this {
    try {
      new URL(uri)
    } catch {
      throw new Error(`resource "${uri}": not an absolute URI`)
    }
    this.#assertFree('resource', uri)
    const { cache, visible, scopes, ...meta } = def
    return this.#add('resource', uri, {
      resource: strip({ uri, ...meta }), cache, handler, enabled: true, visible, scopes: scopesOf(scopes, `resource "${uri}"`),
    })
  }

  /**
   * Registers resources by URI template (RFC 6570, levels 1 to 3, matched exactly). The handler gets the
   * URI read and its variables, and returns undefined for one that does not exist (-32602); `def.list`
   * puts concrete resources in `resources/list`, `def.complete` completes variables.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   *
   * export const server = new McpServer({ name: 'users', version: '1.0.0' })
   *   .resourceTemplate('users://{id}/profile', {
   *     name: 'profile', mimeType: 'application/json',
   *     list: () => [{ uri: 'users://1/profile', name: 'Ada' }],
   *     complete: { id: (value) => ['1', '2'].filter((v) => v.startsWith(value)) },
   *   }, (_uri, { id }) => (id === '1' ? JSON.stringify({ id, name: 'Ada' }) : undefined))
   * ```
   */
  resourceTemplate(uriTemplate: string, def: ResourceTemplateDefinition, handler: TemplateHandler): this {
    this.#assertFree('resourceTemplate', uriTemplate)
    const parsed = parseUriTemplate(uriTemplate)
    const { list, complete, cache, visible, scopes, ...meta } = def
    const where = `resource template "${uriTemplate}"`
    for (const variable of Object.keys(complete ?? {})) {
      if (!parsed.variables.includes(variable)) throw new Error(`${where}: cannot complete unknown variable "${variable}"`)
    }
    return this.#add('resourceTemplate', uriTemplate, {
      template: strip({ uriTemplate, ...meta }), parsed, def, handler, enabled: true, visible, scopes: scopesOf(scopes, where),
    })
  }

  /**
   * Removes a tool, prompt, resource (by URI) or resource template (by URI template) from this instance;
   * false if absent. Other instances hear of it through `notify`.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   * import { serve } from 'mcp-edge/node'
   *
   * const server = new McpServer({ name: 'promo', version: '1.0.0' })
   *   .tool('black_friday', { description: 'Today only' }, () => '50% off')
   * const running = await serve(server)
   *
   * server.remove('tool', 'black_friday')
   * await running.notify.toolsChanged()   // listen streams on every instance refetch the list
   * ```
   */
  remove(kind: Kind, name: string): boolean {
    const removed = this.#entries[kind].delete(name)
    if (removed) this.#changed(kind)
    return removed
  }

  /**
   * Hides an entry of this instance from lists and calls without forgetting it; `enable` brings it back.
   * False if there is none of that name.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   *
   * const server = new McpServer({ name: 'shop', version: '1.0.0' })
   *   .tool('checkout', { description: 'Pays for the cart' }, () => 'Paid')
   *
   * server.disable('tool', 'checkout')   // payments are down
   * server.enable('tool', 'checkout')    // and back
   * ```
   */
  disable(kind: Kind, name: string): boolean {
    return this.#setEnabled(kind, name, false)
  }

  /** Brings back an entry `disable` hid; false if there is none of that name. See `disable`. */
  enable(kind: Kind, name: string): boolean {
    return this.#setEnabled(kind, name, true)
  }

  /**
   * Called after every change to a list of this instance, with the list that changed. Returns an
   * unsubscribe function.
   *
   * @example
   * ```ts
   * import { McpServer } from 'mcp-edge'
   *
   * const server = new McpServer({ name: 'plugins', version: '1.0.0' })
   * const stop = server.onListChanged((list) => console.error(`${list} changed`))
   * server.tool('ping', { description: 'Answers pong' }, () => 'pong')   // "tools changed"
   * stop()
   * ```
   */
  onListChanged(listener: (list: ListName) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** @internal Whether an entry of that name is registered, enabled or not and whoever asks: what telemetry may name. */
  registered(kind: Kind, name: string): boolean {
    return this.#entries[kind].has(name)
  }

  /** @internal The entry of that name if it is enabled and the asker may see it (scopes are checked apart: 403). */
  find<K extends Kind>(kind: K, name: string, asker: Asker): Entries[K] | undefined {
    const entry = this.#entries[kind].get(name)
    return entry && shown(entry, asker) ? entry : undefined
  }

  /**
   * @internal
   * The enabled entries the asker may see, in registration order; with `inScope`, only those whose scopes
   * it was granted too.
   */
  entries<K extends Kind>(kind: K, asker: Asker, inScope = false): Entries[K][] {
    return [...this.#entries[kind].values()].filter((e) => shown(e, asker) && (!inScope || missingScopes(e, asker).length === 0))
  }

  /** The name of a tool that may run as a task, if any has `task` set: then tasks must be served. */
  get taskTool(): string | undefined {
    for (const [name, entry] of this.#entries.tool) if (entry.task !== undefined) return name
    return undefined
  }

  /** @internal Whether some entry of this kind is shown to some askers only (`visible`, `scopes`): then its list is per asker. */
  hidesSome(kind: Kind): boolean {
    return this.#hiding.has(kind)
  }

  /** @internal The wire list of a kind as the asker sees it; computed once per change where nobody is hidden anything. */
  listed<K extends Kind>(kind: K, asker: Asker, inScope = false): Wire[K][] {
    const wire = WIRE[kind] as (e: Entries[K]) => Wire[K]
    if (this.hidesSome(kind)) return this.entries(kind, asker, inScope).map(wire)
    let items = this.#lists.get(kind)
    if (!items) this.#lists.set(kind, (items = this.entries(kind, asker).map(wire)))
    return items as Wire[K][]
  }

  /** @internal */
  cachePolicy(kind: ListName | 'discover' | 'read'): CachePolicy {
    const policy = this.options.cache?.[kind] ?? DEFAULT_CACHE
    // A list that differs by who asks must not be shared by caches between askers.
    const kindOf = KIND_OF[kind]
    return kindOf && policy.cacheScope !== 'private' && this.hidesSome(kindOf) ? { ...policy, cacheScope: 'private' } : policy
  }

  /** The capabilities this definition has handlers for, merged with `options.capabilities`. */
  capabilities(): ServerCapabilities {
    return (this.#capabilities ??= this.#deriveCapabilities())
  }

  #deriveCapabilities(): ServerCapabilities {
    const { tool, prompt, resource, resourceTemplate } = this.#entries
    const caps: ServerCapabilities = {}
    if (tool.size > 0) caps.tools = { listChanged: true }
    if (prompt.size > 0) caps.prompts = { listChanged: true }
    if (resource.size > 0 || resourceTemplate.size > 0) caps.resources = { subscribe: true, listChanged: true }
    if (prompt.size > 0 || resourceTemplate.size > 0) caps.completions = {}
    caps.logging = {}
    return { ...caps, ...this.options.capabilities }
  }

  #add<K extends Kind>(kind: K, name: string, entry: Entries[K]): this {
    this.#entries[kind].set(name, entry)
    this.#changed(kind)
    return this
  }

  #setEnabled(kind: Kind, name: string, enabled: boolean): boolean {
    const entry = this.#entries[kind].get(name)
    if (!entry) return false
    if (entry.enabled !== enabled) {
      entry.enabled = enabled
      this.#changed(kind)
    }
    return true
  }

  #assertFree(kind: Kind, name: string): void {
    const what = kind === 'resourceTemplate' ? 'resource template' : kind
    if (this.#entries[kind].has(name)) throw new Error(`${what} "${name}" is already registered`)
  }

  #changed(kind: Kind): void {
    this.#lists.delete(kind)
    if ([...this.#entries[kind].values()].some((e) => e.visible || e.scopes)) this.#hiding.add(kind)
    else this.#hiding.delete(kind)
    this.#capabilities = undefined
    for (const listener of this.#listeners) listener(LIST_OF[kind])
  }
}

/** Drops undefined members so that wire objects carry only what was given. */
export function strip<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key]
  return value
}
