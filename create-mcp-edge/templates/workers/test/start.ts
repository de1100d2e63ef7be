// How test/server.test.ts starts the Worker: under workerd with wrangler.toml's bindings (the McpHub
// Durable Object), as `wrangler dev` runs it, through wrangler's test harness.
import { createTestHarness } from 'wrangler'

export interface Running { url: URL; close(): Promise<void> }

/** Why the Worker cannot start here, if it cannot. */
export const unsupported: string | false = false

export async function start(): Promise<Running> {
  const worker = createTestHarness({ workers: [{ configPath: './wrangler.toml' }] })
  const { url } = await worker.listen()
  return { url: new URL('/mcp', url), close: () => worker.close() }
}
