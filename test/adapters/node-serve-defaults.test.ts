/**
 * serve() in this process (test/adapters/node-serve.test.ts runs the entry point as a child, out of reach of
 * mutation testing): what it binds when told nothing, as ServeOptions.host and the README document it.
 */
import { describe, expect, it } from 'vitest'
import { startEverything } from '../helpers/server.js'

describe('serve() defaults', () => {
  it('binds 127.0.0.1 when given no host: reachable from this machine only, and no warning about it', async () => {
    const lines: string[] = []
    const running = await startEverything({ log: (line) => void lines.push(line) })
    try {
      expect(running.http.address()).toEqual({ address: '127.0.0.1', family: 'IPv4', port: running.port })
      expect(running.url).toBe(`http://127.0.0.1:${running.port}/mcp`)
      expect(lines).toEqual([expect.stringMatching(/^mcp-edge: listening on http:\/\/127\.0\.0\.1:\d+\/mcp \|/)])
    } finally {
      await running.close()
    }
  })
})
