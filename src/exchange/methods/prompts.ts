import { invalidParams } from '../../protocol/errors.js'
import type { PromptEntry } from '../../server/server.js'
import { argumentsOf, namedEntry, withInput } from '../call.js'
import { servedBy } from '../capabilities.js'
import type { MethodDescriptor } from '../types.js'
import { listMethod } from './lists.js'
import { promptResult } from '../results.js'

export const listPrompts = listMethod('prompts/list', 'prompt', 'prompts', 'prompts')

export const getPrompt: MethodDescriptor<PromptEntry> = {
  method: 'prompts/get',
  served: servedBy('prompts'),
  nameParam: 'name',
  target: (call) => namedEntry(call, 'prompt').entry,
  scopes: (entry) => entry.scopes,
  async run(call, entry) {
    const name = entry.prompt.name
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
    return withInput(call, async (ctx) => promptResult(await entry.handler(args as never, ctx)))
  },
}
