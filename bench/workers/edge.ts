// A minimal mcp-edge Worker: one tool with a JSON Schema input, as a user would write it.
import { McpServer } from 'mcp-edge'
import { createWorker } from 'mcp-edge/cloudflare'

const server = new McpServer({ name: 'minimal', version: '1.0.0' }).tool('echo', {
  description: 'Echoes its text',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, (args) => String(args.text))

export default createWorker(server, { allowedHosts: '*' })
