// The official SDK v2 server: createMcpHandler on node:http through @modelcontextprotocol/node, as its docs show.
import { toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { createServer } from 'node:http'
import * as z from 'zod/v4'
import { announce, FILLER } from './child.mjs'

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }))
  server.registerTool('progress', { description: 'Reports progress three times, then answers' }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken
    if (progressToken !== undefined) {
      for (let i = 1; i <= 3; i++) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: 3 } })
    }
    return { content: [{ type: 'text', text: 'done' }] }
  })
  for (const f of FILLER) {
    server.registerTool(f.name, { description: f.description, inputSchema: z.object({ n: z.number().optional() }) }, async () => ({ content: [] }))
  }
  return server
})
const listener = toNodeHandler(handler)
const http = createServer((req, res) => void listener(req, res))
await new Promise((r) => http.listen(0, '127.0.0.1', r))
announce(`http://127.0.0.1:${http.address().port}/mcp`)
