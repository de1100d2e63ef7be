// A minimal mcp-edge Worker in the README's deploy shape (createWorker, and McpHub exported for the MCP_HUB
// binding), with one tool whose input is a JSON Schema.
import { McpServer } from 'mcp-edge'
import { createWorker } from 'mcp-edge/cloudflare'

const server = new McpServer({ name: 'minimal', version: '1.0.0' }).tool('echo', {
  description: 'Echoes its text',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, (args) => String(args.text))

export { McpHub } from 'mcp-edge/cloudflare'
export default createWorker(server)
