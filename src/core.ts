// `mcp-edge/core`: the transport-neutral exchange core, for runtime adapters (stdio, Lambda, your own):
// a message in, an answer out, notifications to the transport on the way.
export { exchange, MAX_DEPTH, type Answer, type Stage } from './exchange/exchange.js'
export type { Runtime } from './exchange/types.js'
export { assertTasksServed, createRuntime } from './compose/runtime.js'
export type { Call, Session, Transport } from './exchange/types.js'
export { SessionStream, type SessionSink, type SessionStreamOptions } from './exchange/session-stream.js'
export { Cancellation } from './exchange/cancellation.js'
export { sharedRead } from './exchange/shared-read.js'
export { answerStatus } from './http/status.js'
// For telemetry of a runtime's own (Workers' built-in tracing): a request's span name and attributes, as
// OpenTelemetry's MCP conventions name them; plain data, no OpenTelemetry import.
export { endAttributes, errorType, publishAttributes, publishName, serverAttributes, spanName, startAttributes, type SpanAttributes } from './otel/attributes.js'
export type { DirectSse, SseSink } from './http/sse.js'
export type { BodySource } from './http/body.js'
// For backplanes: events off a wire, topics spread over shards, a subscription's topics each once.
export { distinctTopics, fnv1a, parseEvent, shardOf } from './state/backplane.js'
export { invalidParams, internalError, Overloaded } from './protocol/errors.js'
export {
  classify, errorResponse, isObject, notification, readId, resultResponse,
  type Incoming, type JsonObject, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest,
} from './protocol/jsonrpc.js'
export type { Profile } from './protocol/profiles.js'
export type { DurableWork, TaskHost } from './tasks/service.js'
export { tasksOf } from './tasks/extension.js'
export { resumableOf } from './resumable/extension.js'
