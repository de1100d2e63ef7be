/** `npm start`: the everything server on Node at http://127.0.0.1:3000/mcp (PORT and HOST override). */
import { serve } from '../../adapters/node/index.js'
import { createEverythingServer } from './server.js'

const server = createEverythingServer({ requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET } })
const running = await serve(server, { port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' })
console.error(`mcp-edge everything server listening on ${running.url}`)
