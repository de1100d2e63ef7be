/** The everything server over stdio: `node --import tsx examples/everything/stdio.ts`. Logs go to stderr. */
import { serveStdio } from '../../adapters/node/index.js'
import { resumable, tasks } from '../../src/index.js'
import { createEverythingServer } from './server.js'

const stdio = serveStdio(createEverythingServer(), { extensions: [tasks(), resumable()] })
process.once('SIGTERM', () => void stdio.close())
await stdio.closed
process.exit(0)
