// How test/server.test.ts starts the server: serve(), as src/main.ts calls it, on a free port in the test's process.
import { serve } from 'mcp-edge/node'
import { server } from '../src/server.ts'

export interface Running { url: URL; close(): Promise<void> }

/** Why the server cannot start here, if it cannot. */
export const unsupported: string | false = false

export async function start(): Promise<Running> {
  const running = await serve(server, { port: 0, handleSignals: false })
  return { url: new URL(running.url), close: running.close }
}
