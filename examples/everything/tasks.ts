/**
 * The tasks fixture tools of the conformance suite (tasks-* scenarios): how a tool runs as a task, fails as
 * one, and asks for input inside one or before one.
 */
import * as z from 'zod'
import { ERROR, McpError, ToolError, type McpServer } from '../../src/index.js'
import { sleep } from './sleep.js'

const confirmForm = {
  message: 'Confirm?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', description: 'Go ahead' } }, required: ['confirm'] },
} as const

const nameForm = (message: string) => ({
  message,
  requestedSchema: { type: 'object', properties: { name: { type: 'string', description: message } }, required: ['name'] },
} as const)

export function addTaskTools(server: McpServer): McpServer {
  return server
    .tool('greet', {
      description: 'Greets someone at once (never a task)',
      input: z.object({ name: z.string() }),
    }, ({ name }) => `Hello, ${name}!`)
    .tool('slow_compute', {
      description: 'Works for `seconds` seconds; a task when the client supports tasks',
      input: z.object({ seconds: z.number().int().min(0).max(3600), label: z.string().optional() }),
      task: 'optional',
    }, async ({ seconds, label }, ctx) => {
      await sleep(seconds * 1000, ctx.signal)
      return `Computed ${label ?? 'result'} in ${seconds}s`
    })
    .tool('failing_job', { description: 'Runs as a task for about a second, then reports a tool error', task: 'required' }, async (_args, ctx) => {
      await sleep(1000, ctx.signal)
      throw new ToolError('The job failed, as it always does')
    })
    .tool('protocol_error_job', { description: 'Runs as a task and fails with a protocol error', task: 'required' }, () => {
      throw new McpError(ERROR.INTERNAL, 'The job hit a protocol error, as it always does')
    })
    .tool('confirm_delete', {
      description: 'Asks for confirmation inside its task, then deletes (pretends to)',
      input: z.object({ filename: z.string().optional() }),
      task: 'required',
    }, async ({ filename }, ctx) => {
      const answer = await ctx.elicit('confirm', { ...confirmForm, message: `Delete ${filename ?? 'the file'}?` })
      return answer.action === 'accept' && answer.content?.confirm === true ? `Deleted ${filename ?? 'the file'}` : `Kept ${filename ?? 'the file'}`
    })
    .tool('multi_input', { description: 'Asks for two inputs at once inside its task', task: 'required' }, async (_args, ctx) => {
      const answers = await ctx.ask({
        first: { method: 'elicitation/create', params: nameForm('First name?') },
        second: { method: 'elicitation/create', params: nameForm('Last name?') },
      })
      return `Got ${JSON.stringify(answers.first.content?.name)} and ${JSON.stringify(answers.second.content?.name)}`
    })
    .tool('test_tool_with_task', {
      description: 'Asks for a name before its task is made, then greets in the task',
      task: 'required',
      // Settled over input_required rounds of the tools/call itself, before any task exists.
      beforeTask: async (_args, ctx) => void (await ctx.elicit('user_name', nameForm('Your name?'))),
    }, async (_args, ctx) => {
      const answer = await ctx.elicit('user_name', nameForm('Your name?'))
      await sleep(100, ctx.signal)
      return `Hello from the task, ${String(answer.content?.name)}!`
    })
}
