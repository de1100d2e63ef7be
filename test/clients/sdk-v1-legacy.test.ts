/** The v1 SDK client speaks the 2025 era: initialize is answered statelessly, then it lists and calls. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
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

async function connect() {
  wire = recordingFetch()
  const transport = new StreamableHTTPClientTransport(new URL(running.url), { fetch: wire.fetch })
  const client = new Client({ name: 'sdk-v1-test', version: '1.0.0' }, { capabilities: { sampling: {} } })
  await client.connect(transport)
  return { client, transport }
}

describe('SDK v1 client (legacy era)', () => {
  it('initializes without a session and negotiates a 2025 version', async () => {
    const { client, transport } = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-edge-everything', version: '0.1.0' })
    expect(client.getServerCapabilities()).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {}, logging: {} })
    expect(client.getInstructions()).toContain('conformance')
    expect(transport.sessionId).toBeUndefined()
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
    // Accepted, though a stateless server has no session to keep the level in.
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

  it('reports that input requests need a 2026-07-28 client instead of hanging', async () => {
    const { client } = await connect()
    const result = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })
    expect(result).toMatchObject({ isError: true })
    expect(JSON.stringify(result.content)).toContain('requires protocol 2026-07-28')
    await expect(client.getPrompt({ name: 'test_input_required_result_prompt' })).rejects.toThrow(/2026-07-28/)
    await client.close()
  })
})
