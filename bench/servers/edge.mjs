// mcp-edge: the benchmark tools on serve() from mcp-edge/node.
import { z } from 'zod'
import { McpServer } from 'mcp-edge'
import { serve } from 'mcp-edge/node'
import { announce, FILLER } from './child.mjs'

const server = new McpServer({ name: 'bench-edge', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text', input: z.object({ text: z.string() }) }, ({ text }) => text)
  .tool('progress', { description: 'Reports progress three times, then answers' }, (_args, ctx) => {
    for (let i = 1; i <= 3; i++) ctx.progress(i, 3)
    return 'done'
  })
for (const f of FILLER) server.tool(f.name, { description: f.description, input: z.object({ n: z.number().optional() }) }, () => '')

const running = await serve(server, { port: 0, handleSignals: false })
announce(running.url)
