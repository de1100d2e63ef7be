/**
 * The opt-in health route for load balancers (HandlerOptions.healthPath): 200 while serving, 503 once the
 * handler closes; any Host, any Origin, no token; nothing at all unless asked for.
 */
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { type Backplane, bearerAuth, createApp, createFetchHandler, McpServer, memoryBackplane, resumable, tasks } from '../../src/index.js'
import { serve } from '../../adapters/node/index.js'
import { META_2026, modernHeaders } from '../helpers/server.js'

const server = new McpServer({ name: 'health', version: '1.0.0' }).tool('hello', { description: 'says hello' }, () => 'hello')

const probe = (url: string, init: RequestInit = {}) => new Request(url, init)
const listTools = (url: string, headers: Record<string, string> = {}) => new Request(url, {
  method: 'POST',
  headers: { ...modernHeaders('tools/list'), ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META_2026() } }),
})

describe('the health route', () => {
  it('answers GET and HEAD with 200 while serving, and 503 once the handler is closing', async () => {
    const handler = createFetchHandler(server, { healthPath: '/healthz' })
    const ok = await handler(probe('http://127.0.0.1:3000/healthz'))
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toBe('application/json')
    expect(ok.headers.get('cache-control')).toBe('no-store')
    expect(await ok.json()).toEqual({ status: 'serving' })
    const head = await handler(probe('http://127.0.0.1:3000/healthz?probe=1', { method: 'HEAD' }))
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')

    await handler.close()
    const closing = await handler(probe('http://127.0.0.1:3000/healthz'))
    expect(closing.status).toBe(503)
    expect(await closing.json()).toEqual({ status: 'closing' })
    expect((await handler(probe('http://127.0.0.1:3000/healthz', { method: 'HEAD' }))).status).toBe(503)
  })

  it('answers other methods 405, and leaves other paths to the MCP endpoint', async () => {
    const handler = createFetchHandler(server, { healthPath: '/healthz' })
    const post = await handler(probe('http://127.0.0.1/healthz', { method: 'POST', body: '{}' }))
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    // A path that merely contains it is the endpoint's, which a handler mounted anywhere answers.
    expect((await handler(listTools('http://127.0.0.1/mcp/healthz/x'))).status).toBe(200)
    // The endpoint's GET: no standalone stream, and without sessions() no session's stream either.
    const get = await handler(probe('http://127.0.0.1/healthzz'))
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST, OPTIONS'])
  })

  it('answers a balancer probing by the instance address and any Origin, which the MCP endpoint refuses', async () => {
    const handler = createFetchHandler(server, { healthPath: '/healthz' })
    expect((await handler(probe('http://10.0.3.7:3000/healthz'))).status).toBe(200)
    expect((await handler(probe('http://10.0.3.7:3000/healthz', { headers: { origin: 'https://evil.example' } }))).status).toBe(200)
    expect((await handler(listTools('http://10.0.3.7:3000/mcp'))).status).toBe(403)
    expect((await handler(listTools('http://127.0.0.1:3000/mcp', { origin: 'https://evil.example' }))).status).toBe(403)
  })

  it('needs no token where the endpoint does', async () => {
    const handler = createFetchHandler(server, {
      healthPath: '/healthz',
      auth: bearerAuth({ resource: 'http://127.0.0.1:3000/mcp', authorizationServers: ['https://as.example'], verify: async () => undefined }),
    })
    expect((await handler(probe('http://127.0.0.1:3000/healthz'))).status).toBe(200)
    expect((await handler(listTools('http://127.0.0.1:3000/mcp'))).status).toBe(401)
  })

  it('is not there unless asked for, and must be a path', async () => {
    const app = createApp(server)
    expect((await app.fetch(probe('http://127.0.0.1/healthz'))).status).toBe(404)
    expect((await createFetchHandler(server)(probe('http://127.0.0.1/healthz'))).status).toBe(405)
    expect(() => createFetchHandler(server, { healthPath: 'healthz' })).toThrow(/healthPath must be a path/)
    expect(createFetchHandler(server).summary.health).toBeUndefined()
  })

  it('names each service by its kind in the summary, and one without a kind as custom', () => {
    const local = memoryBackplane()
    const custom: Backplane = { publish: (e) => local.publish(e), subscribe: (t, l) => local.subscribe(t, l), close: async () => {} }
    const summary = createFetchHandler(server, { backplane: custom }).summary
    expect(summary).toMatchObject({ backplane: 'custom', auth: false, tasks: undefined, resumable: undefined })
    expect(createFetchHandler(server, { extensions: [tasks(), resumable()] }).summary).toMatchObject({ backplane: 'memory', tasks: 'memory', resumable: 'memory' })
  })

  it('is routed by createApp beside the endpoint', async () => {
    const app = createApp(server, { healthPath: '/up' })
    expect((await app.fetch(probe('http://127.0.0.1/up'))).status).toBe(200)
    expect((await app.fetch(listTools('http://127.0.0.1/mcp'))).status).toBe(200)
    expect(app.summary.health).toBe('/up')
  })

  it('serve() answers it on a real socket to a probe naming the instance address, and says so at start-up', async () => {
    const lines: string[] = []
    const running = await serve(server, { port: 0, handleSignals: false, healthPath: '/healthz', log: (line) => void lines.push(line) })
    try {
      const answer = await get(running.port, '/healthz', '10.0.3.7:8080')
      expect(answer).toEqual({ status: 200, body: '{"status":"serving"}' })
      expect(lines).toEqual([`mcp-edge: listening on ${running.url} | versions 2026-07-28, DRAFT-2026-v1, 2025-11-25, 2025-06-18, 2025-03-26 | backplane memory | auth off | tasks off | resumable off | health /healthz`])
    } finally {
      await running.close()
    }
    // Stopped: a balancer's next probe is refused outright.
    await expect(get(running.port, '/healthz', '10.0.3.7:8080')).rejects.toThrow(/ECONNREFUSED/)
  })
})

/** A GET over node:http, which sends the Host header it is given (as a balancer does), unlike fetch. */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    req.end()
  })
}
