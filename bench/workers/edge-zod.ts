// The same minimal mcp-edge Worker (README deploy shape) with a zod input schema (zod is then part of the bundle).
import { McpServer } from 'mcp-edge'
import { createWorker } from 'mcp-edge/cloudflare'
import * as z from 'zod'

const server = new McpServer({ name: 'minimal', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text', input: z.object({ text: z.string() }) }, ({ text }) => text)

export { McpHub } from 'mcp-edge/cloudflare'
export default createWorker(server)
