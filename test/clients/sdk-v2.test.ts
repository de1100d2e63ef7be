/** The official SDK v2 client, pinned to 2026-07-28, against the Node server: what real clients see. */
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import type { McpServer } from '../../src/index.js'
import { deferred, until } from '../helpers/async.js'
import { recordingFetch } from '../helpers/wire.js'
import { startEverything } from '../helpers/server.js'

let running: RunningServer
let server: McpServer
let wire: ReturnType<typeof recordingFetch>
/** Opened by the test once the client has seen the first progress report of gated_progress. */
let gate = deferred()

beforeAll(async () => {
  server = createEverythingServer()
    .tool('gated_progress', { description: 'reports progress, waits for the test, reports again' }, async (_args, ctx) => {
      ctx.progress(1, 2)
      await gate.promise
      ctx.progress(2, 2)
      return 'through the gate'
    })
  running = await startEverything({}, server)
})
afterAll(() => running.close())
afterEach(async () => {
  await wire.settled()
  expect(wire.violations).toEqual([])
})

async function connect(capabilities: Record<string, unknown> = { elicitation: { form: {} }, sampling: {}, roots: {} }, url = running.url) {
  wire = recordingFetch()
  const client = new Client({ name: 'sdk-v2-test', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities,
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }))
  return client
}

describe('SDK v2 client', () => {
  it('discovers the server: version, capabilities, identity, instructions', async () => {
    const client = await connect()
    expect(client.getProtocolEra()).toBe('modern')
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const discover = await client.discover()
    expect(discover.supportedVersions).toContain('2026-07-28')
    expect(discover.capabilities).toEqual({
      tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true }, completions: {}, logging: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    })
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-edge-everything', version: '0.1.0' })
    expect(client.getInstructions()).toContain('conformance')
    await client.close()
  })

  it('lists tools, prompts, resources and templates', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['test_simple_text', 'add', 'test_custom_header']))
    expect(tools.find((t) => t.name === 'add')).toMatchObject({
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
      annotations: { readOnlyHint: true },
    })
    const { prompts } = await client.listPrompts()
    expect(prompts.find((p) => p.name === 'test_prompt_with_arguments')?.arguments).toEqual([
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ])
    expect(prompts.find((p) => p.name === 'test_prompt_with_embedded_resource')?.arguments).toEqual([
      { name: 'resourceUri', description: 'URI of the resource to embed', required: true },
    ])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary', 'test://watched-resource'])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'test://template/{id}/data', mimeType: 'application/json' })])
    await client.close()
  })

  it('calls tools: text, structured content, tool errors, x-mcp-header arguments', async () => {
    const client = await connect()
    await client.listTools() // the client mirrors x-mcp-header arguments from its cached tool list
    expect(await client.callTool({ name: 'test_simple_text' })).toMatchObject({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    })
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toMatchObject({
      structuredContent: { sum: 42 },
      content: [{ type: 'text', text: '{"sum":42}' }],
    })
    expect(await client.callTool({ name: 'add', arguments: { a: 'two' } })).toMatchObject({ isError: true })
    expect(await client.callTool({ name: 'test_error_handling', arguments: {} })).toMatchObject({ isError: true })
    const greeting = await client.callTool({ name: 'test_custom_header', arguments: { greeting: 'Grüße, 世界', count: 3, loud: true } })
    expect(greeting.content).toEqual([{ type: 'text', text: 'Greeting: Grüße, 世界' }])
    await client.close()
  })

  it('receives progress notifications as they happen, before the result', async () => {
    const client = await connect()
    const seen: { progress: number; total?: number | undefined }[] = []
    const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, {
      onprogress: (p) => void seen.push({ progress: p.progress, total: p.total }),
    })
    expect(result.content).toEqual([{ type: 'text', text: 'Progress complete' }])
    await wire.settled()
    const sent = wire.records.find((r) => r.method === 'tools/call')!.messages.filter((m) => m.method === 'notifications/progress')
    expect(sent.map((m) => (m.params as { progress: number }).progress)).toEqual([0, 50, 100])
    // The client drops a report that lands together with the result, so only the first two are certain.
    expect(seen.slice(0, 2)).toEqual([{ progress: 0, total: 100 }, { progress: 50, total: 100 }])

    // The tool goes on only once the client has its first report: held back until the result, it never would.
    gate = deferred()
    const gated = await client.callTool({ name: 'gated_progress', arguments: {} }, {
      onprogress: (p) => {
        if (p.progress === 1) gate.resolve()
      },
    })
    expect(gated.content).toEqual([{ type: 'text', text: 'through the gate' }])
    await client.close()
  })

  it('gets log messages only at or above the requested logLevel', async () => {
    const client = await connect()
    const logs: unknown[] = []
    client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params))
    await client.callTool({ name: 'test_logging_tool', arguments: {} })
    expect(logs).toEqual([])
    await client.callTool({ name: 'test_logging_tool', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } })
    expect(logs).toEqual([])
    await client.callTool({ name: 'test_logging_tool', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } })
    expect(logs).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ])
    await client.close()
  })

  it('reads resources: text, binary, template; unknown URIs are -32602', async () => {
    const client = await connect()
    expect((await client.readResource({ uri: 'test://static-text' })).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ])
    const binary = await client.readResource({ uri: 'test://static-binary' })
    expect(binary.contents[0]).toMatchObject({ uri: 'test://static-binary', mimeType: 'image/png' })
    expect(Buffer.from((binary.contents[0] as { blob: string }).blob, 'base64').subarray(1, 4).toString()).toBe('PNG')
    const templated = await client.readResource({ uri: 'test://template/abc%20d/data' })
    expect(JSON.parse((templated.contents[0] as { text: string }).text)).toEqual({ id: 'abc d', templateTest: true, data: 'Data for ID: abc d' })
    await expect(client.readResource({ uri: 'test://missing' })).rejects.toMatchObject({ code: -32602, data: { uri: 'test://missing' } })
    await client.close()
  })

  it('gets prompts with and without arguments; missing arguments are -32602', async () => {
    const client = await connect()
    const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } })
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='x', arg2='y'" } }])
    const embedded = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://r' } })
    expect(embedded.messages[0]!.content).toMatchObject({ type: 'resource', resource: { uri: 'test://r' } })
    await expect(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } })).rejects.toMatchObject({ code: -32602 })
    await expect(client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    await client.close()
  })

  it('completes prompt arguments and template variables', async () => {
    const client = await connect()
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } })
    expect(prompt.completion.values).toEqual(['test', 'testValue1'])
    const template = await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } })
    expect(template.completion.values).toEqual(['456'])
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg2', value: '' } })
    expect(none.completion.values).toEqual([])
    await client.close()
  })

  it('fulfils elicitation, sampling and roots automatically over several rounds (MRTR)', async () => {
    const client = await connect()
    const asked: string[] = []
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(`elicit:${req.params.message}`)
      const field = Object.keys((req.params as { requestedSchema: { properties: object } }).requestedSchema.properties)[0]!
      return { action: 'accept', content: { [field]: field === 'color' ? 'teal' : 'Ada' } }
    })
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sample')
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Bonjour' } }
    })
    client.setRequestHandler('roots/list', async () => {
      asked.push('roots')
      return { roots: [{ uri: 'file:///work', name: 'work' }] }
    })

    const single = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })
    expect(single.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])

    asked.length = 0
    const multi = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} })
    expect(multi.content).toEqual([{ type: 'text', text: 'Bonjour Ada (roots: file:///work)' }])
    expect(asked.sort()).toEqual(['elicit:What is your name?', 'roots', 'sample'])

    asked.length = 0
    const rounds = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} })
    expect(rounds.content).toEqual([{ type: 'text', text: 'Hello Ada, your favourite colour is teal' }])
    expect(asked).toEqual(['elicit:Step 1: what is your name?', 'elicit:Step 2: what is your favourite colour?'])

    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' })
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Prompt with user context: Ada' })

    const roots = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} })
    expect(roots.content).toEqual([{ type: 'text', text: 'Client roots: file:///work' }])
    await client.close()
  })

  it('never asks for input the client did not declare: -32021 with the missing capability', async () => {
    const client = await connect({ sampling: {} })
    await expect(client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    })
    await client.close()
    const bare = await connect({})
    await expect(bare.callTool({ name: 'test_missing_capability', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    })
    await bare.close()
  })

  it('listen(): list changes from tool calls and resource updates from outside any request', async () => {
    const client = await connect()
    const seen: string[] = []
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'))
    client.setNotificationHandler('notifications/prompts/list_changed', () => void seen.push('prompts'))
    client.setNotificationHandler('notifications/resources/updated', (n) => void seen.push(n.params.uri))
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] })
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] })

    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} }) // not subscribed
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await running.notify.resourceUpdated('test://watched-resource') // e.g. from a webhook
    await until(() => seen.length >= 3, 5000, 'three notifications')
    expect(seen).toEqual(['tools', 'test://watched-resource', 'test://watched-resource'])
    const read = await client.readResource({ uri: 'test://watched-resource' })
    expect(read.contents[0]).toMatchObject({ text: expect.stringMatching(/version [1-9]/) })

    await subscription.close()
    expect(await subscription.closed).toBe('local')
    await client.close()
  })

  it('listen(): a server shutting down ends the subscription gracefully', async () => {
    const other = await startEverything()
    const client = await connect(undefined, other.url)
    const subscription = await client.listen({ toolsListChanged: true })
    await other.close()
    expect(await subscription.closed).toBe('graceful')
    await client.close()
  })
})
