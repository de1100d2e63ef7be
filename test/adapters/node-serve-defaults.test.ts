/**
 * serve() in this process (test/adapters/node-serve.test.ts runs the entry point as a child, out of reach of
 * mutation testing): what it binds when told nothing, as ServeOptions.host and the README document it.
 */
import { describe, expect, it } from 'vitest'
import { McpServer } from '../../src/index.js'
import { serve } from '../../adapters/node/index.js'
import { META_2026, modernHeaders, startEverything } from '../helpers/server.js'

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

  it("sets Node's timeouts and connection cap as ServeOptions documents them", async () => {
    const plain = await startEverything()
    try {
      expect([plain.http.requestTimeout, plain.http.headersTimeout, plain.http.maxConnections]).toEqual([30_000, 10_000, 16_384])
    } finally {
      await plain.close()
    }
    // The headers' time is at most the whole request's.
    const told = await startEverything({ requestTimeoutMs: 5_000, headersTimeoutMs: 20_000, maxConnections: 7 })
    try {
      expect([told.http.requestTimeout, told.http.headersTimeout, told.http.maxConnections]).toEqual([5_000, 5_000, 7])
    } finally {
      await told.close()
    }
  })

  it('handles SIGTERM and SIGINT unless told not to, and lets go of both handlers once closed', async () => {
    const count = () => [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')]
    const before = count()
    const running = await startEverything({ handleSignals: true })
    expect(count()).toEqual(before.map((n) => n + 1))
    await running.close()
    expect(count()).toEqual(before)
    const quiet = await startEverything()
    expect(count()).toEqual(before)
    await quiet.close()
    // The default, as documented.
    const plain = await serve(new McpServer({ name: 'signals', version: '1.0.0' }), { port: 0, log: false })
    expect(count()).toEqual(before.map((n) => n + 1))
    await plain.close()
  })

  it('names the health path in its start-up line', async () => {
    const lines: string[] = []
    const running = await startEverything({ healthPath: '/healthz', log: (line) => void lines.push(line) })
    await running.close()
    expect(lines[0]).toMatch(/ \| health \/healthz$/)
  })

  it('routes its endpoint (query and escapes as a router reads them), health path and metadata; 404 for anything else', async () => {
    const server = new McpServer({ name: 'paths', version: '1.0.0' }).tool('t', {}, () => 't')
    const running = await serve(server, { port: 0, handleSignals: false, log: false, path: '/api/mcp', healthPath: '/healthz' })
    try {
      const base = `http://127.0.0.1:${running.port}`
      const call = (path: string) => fetch(base + path, {
        method: 'POST', headers: modernHeaders('tools/call', { name: 't' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: {}, _meta: META_2026() } }),
      })
      for (const path of ['/api/mcp', '/api/mcp?x=1', '/api/%6Dcp']) {
        const res = await call(path)
        expect([path, res.status, (await res.json()).result?.content]).toEqual([path, 200, [{ type: 'text', text: 't' }]])
      }
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      for (const path of ['/mcp', '/api/mcp/', '/api', '/api/mcpx', '/%E0%A4%A']) {
        const res = await call(path)
        expect([path, res.status, await res.text()]).toEqual([path, 404, '404 Not Found'])
      }
    } finally {
      await running.close()
    }
  })

  it('on close, lets a request in flight finish within the grace period, and stops one that runs past it', async () => {
    const server = new McpServer({ name: 'grace', version: '1.0.0' })
      .tool('soon', {}, () => new Promise((resolve) => setTimeout(() => resolve('finished'), 150)))
      .tool('never', {}, (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))))
    const call = (url: string, name: string) => {
      const params = { name, arguments: {}, _meta: META_2026() }
      return fetch(url, { method: 'POST', headers: modernHeaders('tools/call', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) }).then((r) => r.text())
    }
    // The default grace (10 s) is plenty for a call of 150 ms.
    const patient = await serve(server, { port: 0, handleSignals: false, log: false })
    const soon = call(patient.url, 'soon')
    await new Promise((r) => setTimeout(r, 50))
    await patient.close()
    expect(await soon).toContain('finished')

    const hasty = await serve(server, { port: 0, handleSignals: false, log: false, shutdownGraceMs: 100 })
    const never = call(hasty.url, 'never')
    await new Promise((r) => setTimeout(r, 50))
    const started = Date.now()
    await hasty.close()
    // Stopped and answered, not cut off: the client learns to send it again.
    expect(JSON.parse(await never)).toMatchObject({ id: 1, error: { message: 'The server shut down before this request finished: send it again', data: { retryAfterMs: 1000 } } })
    expect(Date.now() - started).toBeLessThan(4_000)
  })
})
