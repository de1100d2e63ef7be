// The same minimal server on the official SDK v2 (createMcpHandler), as a Worker.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod/v4'

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }))
  return server
})

export default { fetch: (request: Request) => handler.fetch(request) }
