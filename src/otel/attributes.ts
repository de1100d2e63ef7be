/**
 * A request's attributes as OpenTelemetry's MCP semantic conventions name them (docs/gen-ai/mcp.md of
 * open-telemetry/semantic-conventions-genai): what the request names at its start (the sampler sees those),
 * and how it ended. No `mcp.session.id`: the stateless versions have no session. Plain data, no
 * OpenTelemetry import: Workers' built-in tracing (adapters/cloudflare/tracing.ts) names spans alike.
 */

/** Span attributes: what OpenTelemetry's `Attributes` and Workers' `Span.setAttributes` both take. */
export type SpanAttributes = Record<string, string | number | boolean>
import type { JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { Answer, RequestNames, Transport } from '../exchange/types.js'

/**
 * Longest string attribute or span name kept: request ids and URIs are the client's to make as long as the
 * body allows, and a span holds its attributes until exported (an SDK's queue holds thousands of spans).
 */
export const MAX_ATTRIBUTE_CHARS = 1024
/** Longest tool argument or result kept on a span with captureContent. */
export const MAX_CONTENT_CHARS = 16_384

/** `value`, cut to `max` characters (the last one an ellipsis) when longer. */
export const capped = (value: string, max = MAX_ATTRIBUTE_CHARS): string => (value.length <= max ? value : `${value.slice(0, max - 1)}…`)

/** The span's name: `{mcp.method.name} {target}`, the target being the tool or prompt called (RequestNames). */
export function spanName(names: RequestNames): string {
  return capped(names.target === undefined ? names.method : `${names.method} ${names.target}`)
}

/** What the request names at its start: `names` for what metrics keep, capped strings of the message for the rest. */
export function startAttributes(message: JsonRpcRequest, transport: Transport, names: RequestNames, captureContent: boolean): SpanAttributes {
  const { params } = message
  const { method, target, version } = names
  const attributes: SpanAttributes = { 'mcp.method.name': method, 'jsonrpc.request.id': capped(String(message.id)) }
  if (method === 'tools/call') {
    attributes['gen_ai.operation.name'] = 'execute_tool'
    if (target !== undefined) attributes['gen_ai.tool.name'] = capped(target)
    if (captureContent && params?.arguments !== undefined) attributes['gen_ai.tool.call.arguments'] = capped(JSON.stringify(params.arguments), MAX_CONTENT_CHARS)
  } else if (method === 'prompts/get' && target !== undefined) {
    attributes['gen_ai.prompt.name'] = capped(target)
  }
  if (typeof params?.uri === 'string') attributes['mcp.resource.uri'] = capped(params.uri)
  if (version !== undefined) attributes['mcp.protocol.version'] = version
  attributes['network.transport'] = transport.request ? 'tcp' : 'pipe'
  if (transport.request) attributes['network.protocol.name'] = 'http'
  return attributes
}

/** Where the request was addressed: for recorded spans only (parsing the URL is most of the cost). */
export function serverAttributes(request: Request | undefined): SpanAttributes {
  if (!request) return {}
  const url = new URL(request.url)
  return { 'server.address': url.hostname, 'server.port': url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 }
}

/** What the answer adds: the version spoken, and `error.type` (`tool_error` for a tool's error result). */
export function endAttributes(answer: Answer, captureContent: boolean, method: string): SpanAttributes {
  const attributes: SpanAttributes = {}
  if (answer.profile) attributes['mcp.protocol.version'] = answer.profile.version
  if (!answer.ok) {
    const code = String(answer.error.code)
    attributes['error.type'] = code
    attributes['rpc.response.status_code'] = code
  } else if (answer.result?.isError === true) {
    attributes['error.type'] = 'tool_error'
  }
  if (captureContent && answer.ok && method === 'tools/call' && answer.result) attributes['gen_ai.tool.call.result'] = capped(JSON.stringify(answer.result), MAX_CONTENT_CHARS)
  return attributes
}

/** A backplane publish's attributes (a PRODUCER span of messaging's conventions). */
export const publishAttributes = (topic: string): SpanAttributes => ({ 'messaging.operation.type': 'send', 'messaging.destination.name': capped(topic) })

/** A publish's span name: the topic is a resource URI for resource changes, which a tool may take from its arguments. */
export const publishName = (topic: string): string => capped(`publish ${topic}`)

/** `error.type` of a failure that is not an answer: the error's class name. */
export const errorType = (error: unknown): string => (error instanceof Error ? error.name : 'error')
