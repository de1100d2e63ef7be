import { ERROR } from '../../protocol/constants.js'
import { invalidParams, McpError } from '../../protocol/errors.js'
import { isObject, type JsonObject } from '../../protocol/jsonrpc.js'
import type { ClientCapabilities, Tool } from '../../protocol/types.js'
import { argumentsOf, enabled, listPage, requireString, withInput, type Call } from '../call.js'
import { InputRequired } from '../input.js'
import { toolError, toolResult } from '../results.js'
import type { McpServer } from '../server.js'

export async function listTools(server: McpServer, call: Call): Promise<JsonObject> {
  return listPage(server, call, 'tools', server.list<Tool>('tools', () => enabled(server.tools).map((e) => e.tool)))
}

export async function callTool(server: McpServer, call: Call): Promise<JsonObject> {
  const name = requireString(call.params, 'name')
  const entry = server.tools.get(name)
  if (!entry?.enabled) throw invalidParams(`Unknown tool: ${name}`)
  if (entry.requires) {
    const missing = missingCapabilities(entry.requires, call.capabilities)
    if (missing) {
      throw new McpError(call.profile.missingCapabilityCode, `Tool ${name} requires client capabilities this request did not declare`,
        { requiredCapabilities: missing }, 400)
    }
  }
  let args: unknown = argumentsOf(call.params)
  if (entry.input) {
    let checked = entry.input.validate(args)
    if (checked instanceof Promise) checked = await checked
    // Invalid arguments are a result the model can read and correct (SEP-1303), not a protocol error.
    if (!checked.ok) return toolError(`Invalid arguments for tool ${name}: ${checked.issues.join('; ')}`)
    args = checked.value
  }
  return withInput(server, call, async (ctx) => {
    let result
    try {
      result = toolResult(await entry.handler(args as never, ctx))
    } catch (e) {
      if (e instanceof InputRequired || (e instanceof McpError && e.code !== ERROR.INTERNAL)) throw e
      // So is a failing tool.
      return toolError(e instanceof Error ? e.message : String(e))
    }
    if (entry.output && !result.isError) {
      const checked = await entry.output.validate(result.structuredContent)
      if (!checked.ok) {
        console.error(`mcp-edge: tool ${name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`)
        throw new McpError(ERROR.INTERNAL, `Tool ${name} returned a result that does not match its outputSchema`)
      }
    }
    return result
  })
}

/** The members of `required` that `declared` lacks, or undefined when all are there. */
function missingCapabilities(required: ClientCapabilities, declared: ClientCapabilities): ClientCapabilities | undefined {
  const missing: JsonObject = {}
  for (const [key, value] of Object.entries(required)) {
    const have = declared[key]
    if (!isObject(have)) missing[key] = value
    else if (isObject(value)) {
      const nested = missingCapabilities(value, have)
      if (nested) missing[key] = nested
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined
}
