import { INTERNAL_ERROR } from '../../protocol/constants.js'
import { McpError } from '../../protocol/errors.js'
import type { JsonObject } from '../../protocol/jsonrpc.js'
import type { RequestContext } from '../../server/context.js'
import type { ToolEntry } from '../../server/server.js'
import { ToolError } from '../../server/tool-error.js'
import { argumentsOf, namedEntry, withInput } from '../call.js'
import type { Call, MethodDescriptor } from '../types.js'
import { missingCapabilities, servedBy } from '../capabilities.js'
import { InputRequired } from '../input.js'
import { listMethod } from './lists.js'
import { toolError, toolResult } from '../results.js'

export const listTools = listMethod('tools/list', 'tool', 'tools', 'tools')

export interface ToolCall { entry: ToolEntry; name: string; args: JsonObject }

export const callTool: MethodDescriptor<ToolCall> = {
  method: 'tools/call',
  served: servedBy('tools'),
  nameParam: 'name',
  target: (call) => ({ ...namedEntry(call, 'tool'), args: argumentsOf(call.params) }),
  paramHeaders: ({ entry, args }) => ({ headers: entry.params, args }),
  scopes: ({ entry }) => entry.scopes,
  clientNeeds: (call, { entry }) => (entry.requires ? missingCapabilities(entry.requires, call.client.capabilities) : undefined),
  run: runTool,
}

async function runTool(call: Call, { entry, name, args }: ToolCall): Promise<JsonObject> {
  const input = await checkArguments(entry, name, args)
  if (!input.ok) return input.result
  return withInput(call, (ctx) => invokeTool(call, entry, name, input.value, ctx))
}

/**
 * The tool's arguments as its input schema makes them; invalid ones are a result the model can read and
 * correct (SEP-1303), not a protocol error.
 */
export async function checkArguments(entry: ToolEntry, name: string, args: JsonObject): Promise<{ ok: true; value: unknown } | { ok: false; result: JsonObject }> {
  if (!entry.input) return { ok: true, value: args }
  let checked = entry.input.validate(args)
  if (checked instanceof Promise) checked = await checked
  if (!checked.ok) return { ok: false, result: toolError(`Invalid arguments for tool ${name}: ${checked.issues.join('; ')}`) }
  return { ok: true, value: checked.value }
}

/**
 * Runs a tool's handler to its CallToolResult. A ToolError or an unexpected exception is a result the
 * model reads (isError); asking for input (InputRequired) and protocol errors pass through.
 */
export async function invokeTool(call: Call, entry: ToolEntry, name: string, input: unknown, ctx: RequestContext, handler = entry.handler): Promise<JsonObject> {
  let result
  try {
    result = toolResult(await handler(input as never, ctx))
  } catch (e) {
    if (e instanceof InputRequired || e instanceof McpError) throw e
    if (e instanceof ToolError) return toolError(e.message)
    // A handler stopped by its signal (client gone, task cancelled) has failed as asked: nothing to report.
    if (call.transport.cancel.aborted) return toolError(`Tool ${name} was stopped before it finished`)
    // The message of an unexpected exception may hold what the model must not see (a connection string).
    const errorId = call.runtime.report(e, { method: call.method, tool: name, requestId: call.id })
    return toolError(`Tool ${name} failed unexpectedly (error id ${errorId})`)
  }
  if (entry.output && !result.isError) {
    const checked = await entry.output.validate(result.structuredContent)
    if (!checked.ok) {
      const problem = new Error(`tool ${name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`)
      const errorId = call.runtime.report(problem, { method: call.method, tool: name, requestId: call.id })
      throw new McpError(INTERNAL_ERROR, `Tool ${name} returned a result that does not match its outputSchema (error id ${errorId})`)
    }
  }
  return result
}
