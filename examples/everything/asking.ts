/**
 * The conformance suite's tools that ask the client mid-call (its 2025 scenarios: a 2025 session is asked on
 * the call's own stream; a modern client gets the same questions as an input_required result).
 */
import type { McpServer, RequestContext } from '../../src/index.js'
import { sleep } from './sleep.js'

type Form = Record<string, unknown>

const DEFAULTS: Form = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name', default: 'John Doe' },
    age: { type: 'integer', description: 'Age', default: 30 },
    score: { type: 'number', description: 'Score', default: 95.5 },
    status: { type: 'string', description: 'Status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verified', default: true },
  },
}

const ENUMS: Form = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
  },
}

const CONTACT: Form = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
}

/** A tool handler that logs three times, `ms` apart (the conformance suite's logging tools). */
export const logsThrice = (ms: number) => async (_args: unknown, ctx: RequestContext) => {
  ctx.log('info', 'Tool execution started')
  await sleep(ms, ctx.signal)
  ctx.log('info', 'Tool processing data')
  await sleep(ms, ctx.signal)
  ctx.log('info', 'Tool execution completed')
  return 'Logging complete'
}

export function addAskingTools(server: McpServer): void {
  server
    .tool('test_tool_with_logging', { description: 'Logs three times, 50 ms apart' }, logsThrice(50))
    .tool('test_sampling', {
      description: 'Asks the client model the prompt it is given',
      input: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    }, async ({ prompt }, ctx) => {
      const answer = await ctx.sample('prompt', { messages: [{ role: 'user', content: { type: 'text', text: String(prompt) } }], maxTokens: 100 })
      const content = answer.content as { text?: string }
      return `LLM response: ${content.text ?? JSON.stringify(answer.content)}`
    })
    .tool('test_elicitation', {
      description: 'Asks the user for a username and an email address',
      input: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    }, async ({ message }, ctx) => {
      const answer = await ctx.elicit('contact', { message: String(message), requestedSchema: CONTACT })
      return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`
    })
    .tool('test_elicitation_sep1034_defaults', { description: 'Asks with a default for every field (SEP-1034)' }, async (_args, ctx) => {
      const answer = await ctx.elicit('defaults', { message: 'Please review and update the form fields with defaults', requestedSchema: DEFAULTS })
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`
    })
    .tool('test_elicitation_sep1330_enums', { description: 'Asks with every kind of enum field (SEP-1330)' }, async (_args, ctx) => {
      const answer = await ctx.elicit('enums', { message: 'Please select options from the enum fields', requestedSchema: ENUMS })
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`
    })
}
