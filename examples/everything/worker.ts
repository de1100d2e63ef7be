/**
 * The everything server as a Cloudflare Worker (`npm run dev`, `npm run deploy`; see wrangler.toml). The vars
 * MCP_AUTH_ISSUER and MCP_RESOURCE_URL turn on authorization (examples/everything/auth.ts).
 */
import { createWorker, taskObject } from '../../adapters/cloudflare/index.js'
import { resumable, sessions, tasks } from '../../src/index.js'
import { authFromEnv } from './auth.js'
import { createEverythingServer } from './server.js'

export { McpHub } from '../../adapters/cloudflare/index.js'

// Tasks and resumable requests (for clients that declare them, the seed draft's proposal) run in McpTask objects,
// which keep what 2025 sessions change too.
const worker = createWorker(createEverythingServer(), {
  auth: (env) => authFromEnv(env, undefined), extensions: [tasks(), resumable()], sessions: sessions(),
})
export default worker

/** Where each task lives and runs (the MCP_TASKS binding): the same server and options as the Worker. */
export class McpTask extends taskObject(worker) {}
