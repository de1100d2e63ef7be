// The server on its runtime (test/start.ts starts it), called over HTTP by the official MCP SDK client, as an
// MCP host would.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { start, unsupported, type Running } from './start.ts'

let running: Running | undefined
let client: Client

if (unsupported) console.warn(`Skipped: ${unsupported}`)

describe.skipIf(unsupported)('my-mcp-server', () => {
  beforeAll(async () => {
    running = await start()
    client = new Client({ name: 'my-mcp-server-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(running.url))
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    await running?.close()
  })

  it('lists and calls the greet tool', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['greet'])
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }] })
  })

  it('tells the model what was wrong with its arguments', async () => {
    expect(await client.callTool({ name: 'greet', arguments: { name: ' ' } })).toMatchObject({ isError: true, content: [{ text: 'Give a name to greet' }] })
    expect(await client.callTool({ name: 'greet', arguments: {} })).toMatchObject({ isError: true })
  })

  it('reads the about resource', async () => {
    const { contents } = await client.readResource({ uri: 'about://my-mcp-server' })
    expect(contents).toEqual([{ uri: 'about://my-mcp-server', mimeType: 'text/markdown', text: expect.stringContaining('# my-mcp-server') }])
  })
})
