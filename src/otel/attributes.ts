/**
 * A request's attributes as OpenTelemetry's MCP semantic conventions name them (docs/gen-ai/mcp.md of
 * open-telemetry/semantic-conventions-genai): what the request names at its start (the sampler sees those),
 * and how it ended. No `mcp.session.id`: the stateless versions have no session. Plain data, no
 * OpenTelemetry import: Workers' built-in tracing (adapters/cloudflare/tracing.ts) names spans alike.
 */

/** Span attributes: what OpenTelemetry's `Attributes` and Workers' `Span.setAttributes` both take. */
export type SpanAttributes = Record<string, string | number | boolean>
import { META_PROTOCOL_VERSION } from '../protocol/constants.js'
import { isObject, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import type { Answer, Transport } from '../exchange/types.js'

/** The span's name: `{mcp.method.name} {target}`, the target being the tool or prompt called. */
export function spanName(message: JsonRpcRequest): string {
  const target = targetOf(message)
  return target === undefined ? message.method : `${message.method} ${target}`
}

function targetOf(message: JsonRpcRequest): string | undefined {
  const name = message.params?.name
  return (message.method === 'tools/call' || message.method === 'prompts/get') && typeof name === 'string' ? name : undefined
}

export function startAttributes(message: JsonRpcRequest, transport: Transport, captureContent: boolean): SpanAttributes {
  const { method, params } = message
  const attributes: SpanAttributes = { 'mcp.method.name': method, 'jsonrpc.request.id': String(message.id) }
  const target = targetOf(message)
  if (method === 'tools/call') {
    attributes['gen_ai.operation.name'] = 'execute_tool'
    if (target !== undefined) attributes['gen_ai.tool.name'] = target
    if (captureContent && params?.arguments !== undefined) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(params.arguments)
  } else if (method === 'prompts/get' && target !== undefined) {
    attributes['gen_ai.prompt.name'] = target
  }
  if (typeof params?.uri === 'string') attributes['mcp.resource.uri'] = params.uri
  const meta = isObject(params?._meta) ? params._meta : undefined
  const version = meta?.[META_PROTOCOL_VERSION] ?? transport.versionHeader
  if (typeof version === 'string') attributes['mcp.protocol.version'] = version
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
  if (captureContent && answer.ok && method === 'tools/call' && answer.result) attributes['gen_ai.tool.call.result'] = JSON.stringify(answer.result)
  return attributes
}

/** A backplane publish's attributes (a PRODUCER span of messaging's conventions). */
export const publishAttributes = (topic: string): SpanAttributes => ({ 'messaging.operation.type': 'send', 'messaging.destination.name': topic })

/** `error.type` of a failure that is not an answer: the error's class name. */
export const errorType = (error: unknown): string => (error instanceof Error ? error.name : 'error')
