import { invalidParams } from '../../protocol/errors.js'
import type { JsonObject } from '../../protocol/jsonrpc.js'
import type { Prompt } from '../../protocol/types.js'
import { argumentsOf, enabled, listPage, requireString, withInput, type Call } from '../call.js'
import { promptResult } from '../results.js'
import type { McpServer } from '../server.js'

export async function listPrompts(server: McpServer, call: Call): Promise<JsonObject> {
  return listPage(server, call, 'prompts', server.list<Prompt>('prompts', () => enabled(server.prompts).map((e) => e.prompt)))
}

export async function getPrompt(server: McpServer, call: Call): Promise<JsonObject> {
  const name = requireString(call.params, 'name')
  const entry = server.prompts.get(name)
  if (!entry?.enabled) throw invalidParams(`Unknown prompt: ${name}`)
  const raw = argumentsOf(call.params)
  let args: unknown = raw
  if (entry.schema) {
    const checked = await entry.schema.validate(raw)
    if (!checked.ok) throw invalidParams(`Invalid arguments for prompt ${name}: ${checked.issues.join('; ')}`)
    args = checked.value
  } else {
    const missing = (entry.prompt.arguments ?? []).filter((a) => a.required && typeof raw[a.name] !== 'string').map((a) => a.name)
    if (missing.length > 0) throw invalidParams(`Missing required arguments for prompt ${name}: ${missing.join(', ')}`)
  }
  return withInput(server, call, async (ctx) => promptResult(await entry.handler(args as never, ctx)))
}
