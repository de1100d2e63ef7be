/** Wire types of the 2026-07-28 revision that the server API exposes (schema/2026-07-28/schema.ts). */
import type { JsonObject } from './jsonrpc.js'

export interface Icon {
  src: string
  mimeType?: string | undefined
  sizes?: string[] | undefined
  theme?: 'light' | 'dark' | undefined
}

export interface Implementation {
  name: string
  version: string
  title?: string | undefined
  description?: string | undefined
  websiteUrl?: string | undefined
  icons?: Icon[] | undefined
}

export interface ClientCapabilities {
  experimental?: Record<string, JsonObject> | undefined
  roots?: JsonObject | undefined
  sampling?: { context?: JsonObject | undefined; tools?: JsonObject | undefined } | undefined
  elicitation?: { form?: JsonObject | undefined; url?: JsonObject | undefined } | undefined
  extensions?: Record<string, JsonObject> | undefined
  [key: string]: unknown
}

export interface ServerCapabilities {
  experimental?: Record<string, JsonObject> | undefined
  logging?: JsonObject | undefined
  completions?: JsonObject | undefined
  prompts?: { listChanged?: boolean | undefined } | undefined
  resources?: { subscribe?: boolean | undefined; listChanged?: boolean | undefined } | undefined
  tools?: { listChanged?: boolean | undefined } | undefined
  extensions?: Record<string, JsonObject> | undefined
  /** The seed draft's core tasks (DRAFT-2026-v1 only; 2026-07-28 has the tasks extension instead). */
  tasks?: JsonObject | undefined
}

export interface Annotations {
  audience?: ('user' | 'assistant')[] | undefined
  priority?: number | undefined
  lastModified?: string | undefined
}

export type Meta = Record<string, unknown>

export interface TextContent { type: 'text'; text: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }

export interface TextResourceContents { uri: string; mimeType?: string | undefined; text: string; _meta?: Meta | undefined }
export interface BlobResourceContents { uri: string; mimeType?: string | undefined; blob: string; _meta?: Meta | undefined }
export type ResourceContents = TextResourceContents | BlobResourceContents

export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: Annotations | undefined; _meta?: Meta | undefined }

export interface ResourceLink extends Resource { type: 'resource_link' }

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

export interface ToolAnnotations {
  title?: string | undefined
  readOnlyHint?: boolean | undefined
  destructiveHint?: boolean | undefined
  idempotentHint?: boolean | undefined
  openWorldHint?: boolean | undefined
}

export interface Tool {
  name: string
  title?: string | undefined
  description?: string | undefined
  inputSchema: JsonObject
  outputSchema?: JsonObject | undefined
  annotations?: ToolAnnotations | undefined
  icons?: Icon[] | undefined
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' | undefined } | undefined
  _meta?: Meta | undefined
}

export interface CallToolResult {
  content: ContentBlock[]
  structuredContent?: unknown | undefined
  isError?: boolean | undefined
  _meta?: Meta | undefined
  [key: string]: unknown
}

export interface Resource {
  uri: string
  name: string
  title?: string | undefined
  description?: string | undefined
  mimeType?: string | undefined
  size?: number | undefined
  annotations?: Annotations | undefined
  icons?: Icon[] | undefined
  _meta?: Meta | undefined
}

export interface ResourceTemplate {
  uriTemplate: string
  name: string
  title?: string | undefined
  description?: string | undefined
  mimeType?: string | undefined
  annotations?: Annotations | undefined
  icons?: Icon[] | undefined
  _meta?: Meta | undefined
}

export interface ReadResourceResult { contents: ResourceContents[]; _meta?: Meta | undefined }

export interface PromptArgument { name: string; title?: string | undefined; description?: string | undefined; required?: boolean | undefined }

export interface Prompt {
  name: string
  title?: string | undefined
  description?: string | undefined
  arguments?: PromptArgument[] | undefined
  icons?: Icon[] | undefined
  _meta?: Meta | undefined
}

export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string | undefined; messages: PromptMessage[]; _meta?: Meta | undefined; [key: string]: unknown }

export interface CompleteResult { completion: { values: string[]; total?: number | undefined; hasMore?: boolean | undefined } }

/** Input requests a server embeds in an `input_required` result (MRTR, DIGEST §7). */
export interface ElicitRequest {
  method: 'elicitation/create'
  params:
    | { mode?: 'form' | undefined; message: string; requestedSchema: JsonObject; _meta?: Meta | undefined }
    | { mode: 'url'; message: string; url: string; _meta?: Meta | undefined }
}
export interface CreateMessageRequest { method: 'sampling/createMessage'; params: JsonObject & { messages: unknown[]; maxTokens: number } }
export interface ListRootsRequest { method: 'roots/list'; params?: JsonObject | undefined }
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest

export interface ElicitResult { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> | undefined }
export interface CreateMessageResult { role: 'user' | 'assistant'; content: unknown; model: string; stopReason?: string | undefined; _meta?: Meta | undefined }
export interface Root { uri: string; name?: string | undefined; _meta?: Meta | undefined }
export interface ListRootsResult { roots: Root[]; _meta?: Meta | undefined }

export type InputResponseFor<R extends InputRequest> = R extends ElicitRequest
  ? ElicitResult
  : R extends CreateMessageRequest
    ? CreateMessageResult
    : ListRootsResult

export type CacheScope = 'public' | 'private'
export interface CachePolicy { ttlMs: number; cacheScope: CacheScope }
