/** Wire types of the 2026-07-28 revision that the server API exposes (schema/2026-07-28/schema.ts). */
import type { JsonObject } from './jsonrpc.js'

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

export interface Implementation {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Icon[]
}

export interface ClientCapabilities {
  experimental?: Record<string, JsonObject>
  roots?: JsonObject
  sampling?: { context?: JsonObject; tools?: JsonObject }
  elicitation?: { form?: JsonObject; url?: JsonObject }
  extensions?: Record<string, JsonObject>
  [key: string]: unknown
}

export interface ServerCapabilities {
  experimental?: Record<string, JsonObject>
  logging?: JsonObject
  completions?: JsonObject
  prompts?: { listChanged?: boolean }
  resources?: { subscribe?: boolean; listChanged?: boolean }
  tools?: { listChanged?: boolean }
  extensions?: Record<string, JsonObject>
}

export interface Annotations {
  audience?: ('user' | 'assistant')[]
  priority?: number
  lastModified?: string
}

export type Meta = Record<string, unknown>

export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: Meta }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: Meta }

export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: Meta }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: Meta }
export type ResourceContents = TextResourceContents | BlobResourceContents

export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: Annotations; _meta?: Meta }

export interface ResourceLink extends Resource { type: 'resource_link' }

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema: JsonObject
  outputSchema?: JsonObject
  annotations?: ToolAnnotations
  icons?: Icon[]
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' }
  _meta?: Meta
}

export interface CallToolResult {
  content: ContentBlock[]
  structuredContent?: unknown
  isError?: boolean
  _meta?: Meta
  [key: string]: unknown
}

export interface Resource {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
  _meta?: Meta
}

export interface ResourceTemplate {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  icons?: Icon[]
  _meta?: Meta
}

export interface ReadResourceResult { contents: ResourceContents[]; _meta?: Meta }

export interface PromptArgument { name: string; title?: string; description?: string; required?: boolean }

export interface Prompt {
  name: string
  title?: string
  description?: string
  arguments?: PromptArgument[]
  icons?: Icon[]
  _meta?: Meta
}

export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: Meta; [key: string]: unknown }

export interface CompleteResult { completion: { values: string[]; total?: number; hasMore?: boolean } }

/** Input requests a server embeds in an `input_required` result (MRTR, DIGEST §7). */
export interface ElicitRequest {
  method: 'elicitation/create'
  params:
    | { mode?: 'form'; message: string; requestedSchema: JsonObject; _meta?: Meta }
    | { mode: 'url'; message: string; url: string; _meta?: Meta }
}
export interface CreateMessageRequest { method: 'sampling/createMessage'; params: JsonObject & { messages: unknown[]; maxTokens: number } }
export interface ListRootsRequest { method: 'roots/list'; params?: JsonObject }
export type InputRequest = ElicitRequest | CreateMessageRequest | ListRootsRequest

export interface ElicitResult { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> }
export interface CreateMessageResult { role: 'user' | 'assistant'; content: unknown; model: string; stopReason?: string; _meta?: Meta }
export interface Root { uri: string; name?: string; _meta?: Meta }
export interface ListRootsResult { roots: Root[]; _meta?: Meta }

export type InputResponseFor<R extends InputRequest> = R extends ElicitRequest
  ? ElicitResult
  : R extends CreateMessageRequest
    ? CreateMessageResult
    : ListRootsResult

export type CacheScope = 'public' | 'private'
export interface CachePolicy { ttlMs: number; cacheScope: CacheScope }
