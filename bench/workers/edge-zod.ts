// The same minimal mcp-edge Worker with a zod input schema (zod is then part of the bundle).
import { McpServer } from 'mcp-edge'
import { createWorker } from 'mcp-edge/cloudflare'
import * as z from 'zod'

const server = new McpServer({ name: 'minimal', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text', input: z.object({ text: z.string() }) }, ({ text }) => text)

export default createWorker(server, { allowedHosts: '*' })
