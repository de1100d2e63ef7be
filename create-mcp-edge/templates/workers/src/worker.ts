import { createWorker } from 'mcp-edge/cloudflare'
import { server } from './server.ts'

// The Durable Object that carries listen streams' changes between isolates, exported under the name
// wrangler.toml binds (MCP_HUB) and migrates.
export { McpHub } from 'mcp-edge/cloudflare'
export default createWorker(server)
