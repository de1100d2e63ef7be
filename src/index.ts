// The package's main entry: defining a server and serving it with the fetch handler.
export { McpServer, type ServerOptions, type Kind } from './server/server.js'
export type { Asker, AuthInfo, Notify, RequestContext } from './server/context.js'
export { ToolError } from './server/tool-error.js'
export type {
  Completer, PromptDefinition, PromptHandler, PromptReturn, ResourceDefinition, ResourceHandler, ResourceReturn,
  ResourceTemplateDefinition, Scopes, TemplateHandler, ToolDefinition, ToolHandler, ToolReturn, Visibility,
} from './server/definitions.js'
export type { SchemaInput, StandardSchema } from './server/schema.js'
export { createApp, type AppOptions } from './http/app.js'
export { createFetchHandler, type FetchHandler, type HandlerOptions, type RuntimeContext } from './http/handler.js'
export type { SessionOptions } from './http/session/session.js'
export { sessions, type SessionPlan } from './http/session/plan.js'
export type { HandlerSummary } from './http/summary.js'
export { LOOPBACK_HOSTS, type SecurityOptions } from './http/security.js'
export { InvalidToken, type AuthOptions, type TokenVerifier, type Verified, type VerifyContext } from './auth/options.js'
export { jwtVerifier, type JwtOptions } from './auth/jwt.js'
export { bearerAuth, type Authorization } from './auth/gate.js'
export type { ErrorContext, RequestNames, RequestWatch, Telemetry, WorkWatch } from './exchange/types.js'
export type { RuntimeOptions } from './compose/runtime.js'
export type { Extension, ExtensionPlan, ListenField, MethodDescriptor } from './exchange/types.js'
export type { Secret, SecretSource } from './exchange/request-state.js'
export {
  isResync, listChanged, memoryBackplane, resourceUpdated, RESYNC,
  type Backplane, type ChangeEvent, type Listener, type LocalFanout, type MemoryBackplaneOptions, type Resync, type Subscription,
} from './state/backplane.js'
export { memoryUsedStates, type UsedStates } from './state/used-states.js'
export { memoryTaskStore, isTerminal, StoreFull, type MemoryTaskStoreOptions, type RecordLimits, type TaskLog, type TaskRecord, type TaskStatus, type TaskStore } from './state/tasks.js'
export { tasks, type TaskOptions } from './tasks/extension.js'
export { resumable, type ResumableOptions } from './resumable/extension.js'
export { McpError } from './protocol/errors.js'
export { ERROR, META, LOG_LEVELS, RESUMABLE, TASKS, type LogLevel } from './protocol/constants.js'
export { encodeHeaderValue, decodeHeaderValue } from './protocol/headers.js'
export type * from './protocol/types.js'
