import { serve } from 'mcp-edge/node'
import { server } from './server.ts'

// http://127.0.0.1:3000/mcp by default. Reached under a domain name (behind a proxy, in a container with
// HOST=0.0.0.0), list that name in MCP_ALLOWED_HOSTS: only loopback Host headers pass otherwise.
await serve(server, {
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST,
  allowedHosts: process.env.MCP_ALLOWED_HOSTS?.split(','),
})
