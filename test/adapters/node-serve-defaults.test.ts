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

  it('warns, on a host that is not loopback, that only loopback Host headers pass until allowedHosts names the server', async () => {
    const lines: string[] = []
    const running = await startEverything({ host: '0.0.0.0', log: (line) => void lines.push(line) })
    try {
      expect(lines[0]).toBe("mcp-edge: listening on 0.0.0.0, but only loopback Host headers are accepted until allowedHosts names this server's hostnames")
      expect(lines[1]).toMatch(/^mcp-edge: listening on http:\/\/0\.0\.0\.0:\d+\/mcp \| versions .* \| backplane memory \| auth off \| tasks memory \| resumable off$/)
    } finally {
      await running.close()
    }
    const named: string[] = []
    const told = await startEverything({ host: '0.0.0.0', allowedHosts: ['mcp.example.com'], log: (line) => void named.push(line) })
    await told.close()
    expect(named).toEqual([expect.stringMatching(/^mcp-edge: listening on /)])
  })

  it('says an IPv6 loopback address in brackets, without the warning', async () => {
    const lines: string[] = []
    const running = await startEverything({ host: '::1', log: (line) => void lines.push(line) })
    try {
      expect(running.url).toBe(`http://[::1]:${running.port}/mcp`)
      expect(lines).toEqual([expect.stringMatching(/^mcp-edge: listening on http:\/\/\[::1\]:\d+\/mcp \|/)])
    } finally {
      await running.close()
    }
  })
})
