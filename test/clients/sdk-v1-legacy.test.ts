/**
 * The v1 SDK client speaks the 2025 era: initialize opens a session (sealed, kept by no instance), then it
 * lists and calls, sets its log level, is asked for input mid-call, and ends the session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { recordingFetch } from '../helpers/wire.js'
import { startEverything } from '../helpers/server.js'

let running: RunningServer
beforeAll(async () => {
  running = await startEverything()
})
afterAll(() => running.close())

let wire: ReturnType<typeof recordingFetch>
afterEach(async () => {
  await wire.settled()
  // Every answer, checked against the 2025-11-25 schema.
  expect(wire.records.length).toBeGreaterThan(0)
  expect(wire.violations).toEqual([])
})

async function connect(capabilities: Record<string, object> = { sampling: {}, elicitation: {} }) {
  wire = recordingFetch()
  const transport = new StreamableHTTPClientTransport(new URL(running.url), { fetch: wire.fetch })
  const client = new Client({ name: 'sdk-v1-test', version: '1.0.0' }, { capabilities })
  await client.connect(transport)
  return { client, transport }
}

describe('SDK v1 client (legacy era)', () => {
  it('initializes a session and negotiates a 2025 version', async () => {
    const { client, transport } = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-edge-everything', version: '0.1.0' })
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true }, completions: {}, logging: {} })
    expect(client.getInstructions()).toContain('conformance')
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]{40,}$/)
    const init = wire.records.find((r) => r.method === 'initialize')!
    expect(init.messages[0]).toMatchObject({ result: { protocolVersion: '2025-11-25' } })
    // Legacy results carry none of the 2026 fields.
    expect(init.messages[0]!.result).not.toHaveProperty('resultType')
    await client.close()
  })

  it('lists and calls tools, reads resources, gets prompts, completes and pings', async () => {
    const { client } = await connect()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toContain('test_simple_text')
    const listed = await client.listTools()
    expect(listed).not.toHaveProperty('ttlMs')
    expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    })
    expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({ structuredContent: { sum: 3 } })
    const read = await client.readResource({ uri: 'test://template/7/data' })
    expect(read.contents[0]).toMatchObject({ uri: 'test://template/7/data', mimeType: 'application/json' })
    const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
    expect(prompt.messages).toHaveLength(1)
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'o' } })
    expect(done.completion.values).toEqual(['other'])
    expect(await client.ping()).toEqual({})
    expect(await client.setLoggingLevel('info')).toEqual({})
    await expect(client.setLoggingLevel('loud' as never)).rejects.toMatchObject({ code: -32602 })
    await client.close()
  })

  it('gets progress notifications over SSE', async () => {
    const { client } = await connect()
    const progress: number[] = []
    await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) })
    await wire.settled()
    const sent = wire.records.find((r) => r.method === 'tools/call')!.messages.filter((m) => m.method === 'notifications/progress')
    expect(sent.map((m) => (m.params as { progress: number }).progress)).toEqual([0, 50, 100])
    // The client may drop the last one, which lands together with the result.
    expect(progress.slice(0, 2)).toEqual([0, 50])
    await client.close()
  })

  it('is asked for input mid-call: a tool that elicits and one that samples get the answers of its handlers', async () => {
    const { client } = await connect()
    const asked: unknown[] = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params)
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }
    })
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }))
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })
    expect(elicited.content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }])
    expect(asked).toMatchObject([{ message: 'Who are you?', requestedSchema: { required: ['username', 'email'] } }])
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } })
    expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: Paris' }])
    // The requests went out on the call's own stream, with ids no other instance makes.
    const sent = wire.records.filter((r) => r.method === 'tools/call').flatMap((r) => r.messages).filter((m) => typeof m.method === 'string' && !m.method.startsWith('notifications/'))
    expect(sent.map((m) => m.method)).toEqual(['elicitation/create', 'sampling/createMessage'])
    expect(sent.every((m) => /^mcp-edge-[\w-]{22}$/.test(String(m.id)))).toBe(true)
    await client.close()
  })

  it('a client without the capability is not asked: the call fails with -32021', async () => {
    const { client } = await connect({})
    await expect(client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } })).rejects.toMatchObject({ code: -32021 })
    await client.close()
  })

  it('its log level is kept with the session: a tool logs at it and above, and not below', async () => {
    const { client } = await connect()
    const logs: string[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)))
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} })
    expect(logs).toEqual([])
    await client.setLoggingLevel('debug')
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} })
    await wire.settled()
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed'])
    await client.setLoggingLevel('error')
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} })
    expect(logs).toHaveLength(3)
    await client.close()
  })

  it('ends its session with DELETE: the id is refused (404) from then on', async () => {
    const { client, transport } = await connect()
    const id = transport.sessionId!
    await transport.terminateSession()
    const res = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(res.status).toBe(404)
    expect((await res.json()).error).toMatchObject({ code: -32001 })
    await client.close()
  })
})
