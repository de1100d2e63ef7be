import { invalidParams } from '../../protocol/errors.js'
import { isObject } from '../../protocol/jsonrpc.js'
import type { Completer } from '../../server/definitions.js'
import { servedBy } from '../capabilities.js'
import { Context } from '../context.js'
import type { MethodDescriptor } from '../method.js'
import { completion } from '../results.js'

/** Completion of prompt arguments (enum arguments complete by themselves) and template variables. */
export const complete: MethodDescriptor = {
  method: 'completion/complete',
  served: servedBy('completions'),
  async run(call) {
    const { server } = call.runtime
    const { ref, argument } = call.params
    if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw invalidParams('completion/complete needs ref and argument { name, value }')
    }
    const given = isObject(call.params.context) && isObject(call.params.context.arguments) ? call.params.context.arguments : {}
    const args = Object.fromEntries(Object.entries(given).filter(([, v]) => typeof v === 'string')) as Record<string, string>
    const value = argument.value
    let completer: Completer | undefined
    if (ref.type === 'ref/prompt') {
      const entry = typeof ref.name === 'string' ? server.find('prompt', ref.name, call) : undefined
      if (!entry) throw invalidParams(`Unknown prompt: ${String(ref.name)}`)
      const choices = entry.enums[argument.name]
      completer = entry.complete[argument.name] ?? (choices && (() => choices.filter((v) => v.startsWith(value))))
    } else if (ref.type === 'ref/resource') {
      const entry = typeof ref.uri === 'string' ? server.find('resourceTemplate', ref.uri, call) : undefined
      if (!entry) throw invalidParams(`Unknown resource template: ${String(ref.uri)}`)
      completer = entry.def.complete?.[argument.name]
    } else {
      throw invalidParams('ref.type must be ref/prompt or ref/resource')
    }
    return { completion: completer ? completion(await completer(value, { arguments: args, ctx: new Context(call) })) : { values: [] } }
  },
}
