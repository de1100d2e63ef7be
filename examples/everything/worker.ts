/** The everything server as a Cloudflare Worker (`npm run dev`, `npm run deploy`; see wrangler.toml). */
import { createWorker } from '../../adapters/cloudflare/index.js'
import { createEverythingServer } from './server.js'

export { McpHub } from '../../adapters/cloudflare/index.js'

export default createWorker(createEverythingServer())
