// The function as it deploys: bundled from template.yaml the way `sam build` does, run by AWS's own runtime
// client (aws-lambda-ric) behind a local function URL (mcp-edge-lambda), called over HTTP by the official
// MCP SDK client, as an MCP host would.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { samBuild } from '../scripts/sam-build.ts'

let local: ChildProcess | undefined
let client: Client

/** mcp-edge-lambda on a free port, running the bundle in `dir`; resolves with the endpoint once it listens. */
async function startFunctionUrl(dir: string): Promise<URL> {
  const child = spawn(join('node_modules', '.bin', 'mcp-edge-lambda'), [dir, '--handler', 'handler.handler', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  local = child
  let output = ''
  for await (const chunk of child.stdout) {
    output += chunk
    const url = /(http:\/\/\S+) runs /.exec(output)?.[1]
    if (url) return new URL(url)
  }
  throw new Error(`mcp-edge-lambda stopped before it listened: ${output}`)
}

// AWS's runtime client builds its native part on Linux only (as Lambda itself is): elsewhere, run this in CI
// or a Linux container.
describe.skipIf(process.platform !== 'linux')('on the Lambda runtime client', () => {
  beforeAll(async () => {
    const url = await startFunctionUrl(await samBuild())
    client = new Client({ name: 'my-mcp-server-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(url))
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    if (local && local.exitCode === null) {
      local.kill('SIGTERM')
      await once(local, 'exit')
    }
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
