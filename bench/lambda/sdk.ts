// The same server on the official SDK v2 (createMcpHandler), with mcp-edge's Lambda plumbing (event to
// Request, the prelude, the pump), so that the comparison is of the two servers, not of two adapters.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod/v4'
import { awslambda, send, type ResponseStream } from '../../adapters/lambda/stream.js'
import { planUrlEvent, type UrlEvent } from '../../adapters/lambda/url-event.js'

const mcp = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }))
  return server
})

export const handler = awslambda()!.streamifyResponse(async (event: UrlEvent, stream: ResponseStream, context: { callbackWaitsForEmptyEventLoop: boolean }) => {
  context.callbackWaitsForEmptyEventLoop = false
  const plan = planUrlEvent(event)
  const response = await mcp.fetch(plan.request(new AbortController().signal))
  await send(stream, () => plan.prelude(response), response.body, { flushBytes: 0, stop: new AbortController().signal })
})
