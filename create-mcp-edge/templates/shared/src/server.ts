import { McpServer, ToolError } from 'mcp-edge'
import * as z from 'zod'

/** What the server offers; the runtime's entry beside this file serves it, and test/start.ts starts it for the tests. */
export const server = new McpServer({ name: 'my-mcp-server', version: '0.1.0' })
  .tool('greet', {
    description: 'Greets someone by name',
    input: z.object({ name: z.string().describe('Who to greet') }),
  }, ({ name }) => {
    // The model reads a ToolError's message and can try again.
    if (name.trim() === '') throw new ToolError('Give a name to greet')
    return `Hello, ${name}!`
  })
  .resource('about://my-mcp-server', { name: 'about', mimeType: 'text/markdown' },
    () => '# my-mcp-server\n\nAn MCP server on mcp-edge with one tool, `greet`.')
