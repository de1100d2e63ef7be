import { invalidParams } from '../../protocol/errors.js'
import { isObject } from '../../protocol/jsonrpc.js'
import type { Completer, Scopes } from '../../server/definitions.js'
import { servedBy } from '../capabilities.js'
import type { Call, MethodDescriptor } from '../types.js'
import { Context } from '../context.js'
import { completion } from '../results.js'

/** What is completed: the prompt or template `ref` names (its scopes apply), and how, if it can be. */
interface Completing { readonly completer: Completer | undefined; readonly value: string; readonly scopes: Scopes | undefined }

/** Completion of prompt arguments (enum arguments complete by themselves) and template variables. */
export const complete: MethodDescriptor<Completing> = {
  method: 'completion/complete',
  served: servedBy('completions'),
  target: completing,
  scopes: (target) => target.scopes,
  async run(call, { completer, value }) {
    const given = isObject(call.params.context) && isObject(call.params.context.arguments) ? call.params.context.arguments : {}
    const args = Object.fromEntries(Object.entries(given).filter(([, v]) => typeof v === 'string')) as Record<string, string>
    return { completion: completer ? completion(await completer(value, { arguments: args, ctx: new Context(call) })) : { values: [] } }
  },
}

function completing(call: Call): Completing {
  const { server } = call.runtime
  const { ref, argument } = call.params
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('completion/complete needs ref and argument { name, value }')
  }
  const value = argument.value
  if (ref.type === 'ref/prompt') {
    const entry = typeof ref.name === 'string' ? server.find('prompt', ref.name, call) : undefined
    if (!entry) throw invalidParams(`Unknown prompt: ${String(ref.name)}`)
    const choices = own(entry.enums, argument.name)
    return { completer: own(entry.complete, argument.name) ?? (choices && (() => choices.filter((v) => v.startsWith(value)))), value, scopes: entry.scopes }
  }
  if (ref.type === 'ref/resource') {
    const entry = typeof ref.uri === 'string' ? server.find('resourceTemplate', ref.uri, call) : undefined
    if (!entry) throw invalidParams(`Unknown resource template: ${String(ref.uri)}`)
    return { completer: entry.def.complete && own(entry.def.complete, argument.name), value, scopes: entry.scopes }
  }
  throw invalidParams('ref.type must be ref/prompt or ref/resource')
}

/** `record[key]` if it is the record's own: a client's `constructor` or `__proto__` names nothing. */
const own = <T>(record: Record<string, T>, key: string): T | undefined => (Object.hasOwn(record, key) ? record[key] : undefined)
