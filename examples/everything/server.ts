/**
 * The conformance fixture ("everything" server): every tool, resource, template and prompt the official
 * conformance suite exercises, defined once and served by every runtime entry point.
 */
import * as z from 'zod'
import { McpServer, type ServerOptions } from '../../src/index.js'
import { PNG_BASE64, WAV_BASE64 } from './media.js'
import { sleep } from './sleep.js'
import { addAskingTools, logsThrice } from './asking.js'
import { addTaskTools } from './tasks.js'

const nameForm = (message: string, field = 'name') => ({
  message,
  requestedSchema: { type: 'object', properties: { [field]: { type: 'string', description: message } }, required: [field] },
})

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

export function createEverythingServer(options: Partial<ServerOptions> = {}): McpServer {
  const server = new McpServer({
    name: 'mcp-edge-everything',
    title: 'mcp-edge everything server',
    version: '0.1.0',
    description: 'Conformance fixture for mcp-edge',
    instructions: 'A test server exposing every MCP feature the conformance suite checks.',
    ...options,
  })
  let watched = 0

  server
    .tool('test_simple_text', { description: 'Returns a simple text response' }, () => 'This is a simple text response for testing.')
    .tool('test_image_content', { description: 'Returns an image' }, () => [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }])
    .tool('test_audio_content', { description: 'Returns audio' }, () => [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }])
    .tool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => [
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ])
    .tool('test_multiple_content_types', { description: 'Returns text, an image and a resource' }, () => [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
    ])
    .tool('test_tool_with_progress', { description: 'Reports progress three times' }, async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        ctx.progress(step, 100, `step ${step}`)
        if (step < 100) await sleep(50, ctx.signal)
      }
      return 'Progress complete'
    })
    // Long enough to leave and come back (resumable requests, src/resumable/): a report every half second for 3 s.
    .tool('test_long_progress', { description: 'Reports progress every 500 ms for 3 s' }, async (_args, ctx) => {
      for (let step = 1; step <= 6; step++) {
        await sleep(500, ctx.signal)
        ctx.progress(step, 6, `step ${step} of 6`)
      }
      return 'Long work complete'
    })
    .tool('test_error_handling', { description: 'Always fails' }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    }))
    .tool('test_logging_tool', { description: 'Logs while it runs (only when the request sets a logLevel)' }, logsThrice(20))
    .tool('test_missing_capability', { description: 'Needs the sampling capability', requires: { sampling: {} } }, async (_args, ctx) => {
      const answer = await ctx.sample('question', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
        maxTokens: 50,
      })
      return `Sampled: ${text(answer.content)}`
    })
    .tool('test_streaming_elicitation', { description: 'Asks for input through an input_required result' }, async (_args, ctx) => {
      const answer = await ctx.elicit('user_name', nameForm('What is your name?'))
      return `Hello, ${text(answer.content?.name)}!`
    })
    // Registration at run time changes this instance only (the conformance suite talks to one); the
    // notification reaches every instance's listen streams.
    .tool('test_trigger_tool_change', { description: 'Adds or removes test_dynamic_tool' }, async (_args, ctx) => {
      const removed = server.remove('tool', 'test_dynamic_tool')
      if (!removed) server.tool('test_dynamic_tool', { description: 'Appears and disappears' }, () => 'dynamic')
      await ctx.notify.toolsChanged()
      return removed ? 'Removed test_dynamic_tool' : 'Added test_dynamic_tool'
    })
    .tool('test_update_watched_resource', { description: 'Changes test://watched-resource and tells its subscribers' }, async (_args, ctx) => {
      watched++
      await ctx.notify.resourceUpdated('test://watched-resource')
      return `test://watched-resource is now at version ${watched}`
    })
    .tool('test_trigger_prompt_change', { description: 'Adds or removes test_dynamic_prompt' }, async (_args, ctx) => {
      const removed = server.remove('prompt', 'test_dynamic_prompt')
      if (!removed) server.prompt('test_dynamic_prompt', { description: 'Appears and disappears' }, () => 'dynamic')
      await ctx.notify.promptsChanged()
      return removed ? 'Removed test_dynamic_prompt' : 'Added test_dynamic_prompt'
    })

  // Multi-round-trip requests (SEP-2322).
  server
    .tool('test_input_required_result_elicitation', { description: 'Asks for the user name' }, async (_args, ctx) => {
      const answer = await ctx.elicit('user_name', nameForm('What is your name?'))
      return `Hello, ${text(answer.content?.name)}!`
    })
    .tool('test_input_required_result_sampling', { description: 'Asks the client model a question' }, async (_args, ctx) => {
      const answer = await ctx.sample('capital_question', {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      })
      const content = answer.content as { text?: string }
      return `Sampling result: ${content.text ?? text(answer.content)}`
    })
    .tool('test_input_required_result_list_roots', { description: 'Asks for the client roots' }, async (_args, ctx) => {
      const { roots } = await ctx.listRoots('client_roots')
      return `Client roots: ${roots.map((r) => r.uri).join(', ')}`
    })
    .tool('test_input_required_result_request_state', { description: 'Carries integrity-protected requestState' }, async (_args, ctx) => {
      const started = await ctx.memo('started', () => new Date().toISOString())
      const answer = await ctx.elicit('confirm', {
        message: 'Confirm to continue',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      })
      return `Request state verified (state-ok); started ${started}, answer ${answer.action}`
    })
    .tool('test_input_required_result_multiple_inputs', { description: 'Asks for three inputs at once' }, async (_args, ctx) => {
      const { user_name, greeting, client_roots } = await ctx.ask({
        user_name: { method: 'elicitation/create', params: nameForm('What is your name?') },
        greeting: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Write a greeting' } }], maxTokens: 50 },
        },
        client_roots: { method: 'roots/list', params: {} },
      })
      const content = greeting.content as { text?: string }
      return `${content.text ?? ''} ${text(user_name.content?.name)} (roots: ${client_roots.roots.map((r) => r.uri).join(', ')})`
    })
    .tool('test_input_required_result_multi_round', { description: 'Asks in two rounds' }, async (_args, ctx) => {
      const first = await ctx.elicit('step1', nameForm('Step 1: what is your name?'))
      const second = await ctx.elicit('step2', nameForm('Step 2: what is your favourite colour?', 'color'))
      return `Hello ${text(first.content?.name)}, your favourite colour is ${text(second.content?.color)}`
    })
    .tool('test_input_required_result_tampered_state', { description: 'Rejects a tampered requestState' }, async (_args, ctx) => {
      await ctx.elicit('confirm', {
        message: 'Confirm to continue',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      })
      return 'State intact'
    })
    .tool('test_input_required_result_capabilities', { description: 'Asks only for what the client declared' }, async (_args, ctx) => {
      const caps = ctx.client.capabilities
      const requests = {
        ...(caps.sampling && {
          question: {
            method: 'sampling/createMessage' as const,
            params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 },
          },
        }),
        ...(caps.roots && { roots: { method: 'roots/list' as const, params: {} } }),
        ...(caps.elicitation && { user_name: { method: 'elicitation/create' as const, params: nameForm('What is your name?') } }),
      }
      // With nothing declared, asking for sampling yields -32021 naming what is missing.
      const answers = await ctx.ask(Object.keys(requests).length > 0 ? requests : { question: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } })
      return `Received ${Object.keys(answers).join(', ')}`
    })

  // Schema features and header mirroring.
  server
    .tool('json_schema_2020_12_tool', {
      description: 'Tool with JSON Schema 2020-12 features',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    }, (args) => `Contact: ${JSON.stringify(args)}`)
    .tool('test_custom_header', {
      description: 'Mirrors its greeting argument into the Mcp-Param-Greeting header',
      input: {
        type: 'object',
        properties: {
          greeting: { type: 'string', 'x-mcp-header': 'Greeting' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          loud: { type: 'boolean', 'x-mcp-header': 'Loud' },
        },
        required: ['greeting'],
      },
    }, (args) => `Greeting: ${text(args.greeting)}`)
    .tool('add', {
      description: 'Adds two numbers (zod input and output schemas, structured result)',
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true, idempotentHint: true },
    }, ({ a, b }) => ({ sum: a + b }))
  addTaskTools(server)
  addAskingTools(server)

  server
    .prompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => 'This is a simple prompt for testing.')
    .prompt('test_prompt_with_arguments', {
      description: 'A prompt with two arguments',
      args: [
        { name: 'arg1', description: 'First argument', required: true },
        { name: 'arg2', description: 'Second argument', required: true },
      ],
      complete: { arg1: (value) => ['test', 'testValue1', 'other'].filter((v) => v.startsWith(value)) },
    }, ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)
    .prompt('test_prompt_with_embedded_resource', {
      description: 'A prompt that embeds a resource',
      args: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    }, ({ resourceUri }) => [
      { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ])
    .prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ])
    .prompt('test_input_required_result_prompt', { description: 'Asks for context before answering' }, async (_args, ctx) => {
      const answer = await ctx.elicit('user_context', nameForm('What context should the prompt use?', 'context'))
      return `Prompt with user context: ${text(answer.content?.context)}`
    })

  server
    .resource('test://static-text', { name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
      () => 'This is the content of the static text resource.')
    .resource('test://static-binary', { name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png' },
      () => Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0)))
    .resource('test://watched-resource', { name: 'watched-resource', description: 'A resource clients may watch', mimeType: 'text/plain' },
      () => `Watched resource content, version ${watched}`)
    .resourceTemplate('test://template/{id}/data', {
      name: 'template-data',
      description: 'Data for an id',
      mimeType: 'application/json',
      complete: { id: (value) => ['123', '456', '789'].filter((v) => v.startsWith(value)) },
    }, (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))

  // Exists only where requests are authenticated (MCP_AUTH_ISSUER, examples/everything/auth.ts): an entry
  // with scopes is hidden elsewhere, so conformance runs see the same server as before.
  server.tool('test_admin_action', { description: 'An administrative action: needs the mcp:admin scope', scopes: ['mcp:admin'] },
    (_args, ctx) => `Admin action done for ${ctx.auth?.subject ?? 'nobody'}`)

  return server
}
