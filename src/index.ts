export { McpServer, type ServerOptions } from './server/server.js'
export type { RequestContext } from './server/context.js'
export type {
  Completer, PromptDefinition, PromptHandler, PromptReturn, ResourceDefinition, ResourceHandler, ResourceReturn,
  ResourceTemplateDefinition, TemplateHandler, ToolDefinition, ToolHandler, ToolReturn,
} from './server/definitions.js'
export type { SchemaInput, StandardSchema } from './server/schema.js'
export { createApp } from './http/app.js'
export { createFetchHandler, type FetchHandler, type HandlerOptions, type RuntimeContext } from './http/handler.js'
export { LOOPBACK_HOSTS, type SecurityOptions } from './http/security.js'
export { McpError } from './protocol/errors.js'
export { ERROR, META, LOG_LEVELS, type LogLevel } from './protocol/constants.js'
export { encodeHeaderValue, decodeHeaderValue } from './protocol/headers.js'
export type * from './protocol/types.js'
