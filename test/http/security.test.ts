/** Origin/Host validation (DNS rebinding) and CORS for browser clients. */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { createApp, createFetchHandler, LOOPBACK_HOSTS, McpServer } from '../../src/index.js'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { validateServerMessage } from '../helpers/wire.js'

const server = new McpServer({ name: 'sec', version: '1.0.0' }).tool('hello', { description: 'says hello' }, () => 'hello')

const listTools = (headers: Record<string, string> = {}, url = 'http://127.0.0.1:3000/mcp') =>
  new Request(url, {
    method: 'POST',
    headers: { ...modernHeaders('tools/list'), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META_2026() } }),
  })

describe('Host validation', () => {
  const loopback = createFetchHandler(server, { allowedHosts: LOOPBACK_HOSTS })

  it.each(['127.0.0.1:3000', 'localhost:8080', 'localhost', '[::1]:3000', '[::1]', 'LOCALHOST:3000'])('a loopback-bound server accepts Host %s', async (host) => {
    expect((await loopback(listTools({}, `http://${host}/mcp`))).status).toBe(200)
  })

  it.each(['evil.example.com', 'evil.example.com:3000', '127.0.0.1.nip.io', 'localhost.evil.com', '[::2]:3000', 'localhostx', 'localhostx:3000'])('and refuses Host %s with 403', async (host) => {
    const res = await loopback(listTools({}, `http://${host}/mcp`))
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toContain('Host')
  })

  it('a custom domain passes once it is allow-listed', async () => {
    const handler = createFetchHandler(server, { allowedHosts: ['mcp.example.com'] })
    expect((await handler(listTools({ origin: 'https://mcp.example.com' }, 'https://mcp.example.com/mcp'))).status).toBe(200)
    expect((await handler(listTools({}, 'https://other.example.com/mcp'))).status).toBe(403)
  })
})

describe('Origin validation and CORS', () => {
  const handler = createFetchHandler(server, { allowedOrigins: ['https://app.example.com'] })

  it('accepts requests without an Origin (non-browser clients)', async () => {
    expect((await handler(listTools())).status).toBe(200)
  })

  it('accepts same-origin requests', async () => {
    expect((await handler(listTools({ origin: 'http://127.0.0.1:3000' }))).status).toBe(200)
  })

  it('refuses foreign origins with 403', async () => {
    expect((await handler(listTools({ origin: 'https://evil.example.com' }))).status).toBe(403)
    expect((await handler(listTools({ origin: 'http://127.0.0.1:3001' }))).status).toBe(403)
  })

  it('lets allow-listed origins in, with CORS headers', async () => {
    const res = await handler(listTools({ origin: 'https://app.example.com' }))
    expect(res.status).toBe(200)
    expect(validateServerMessage('2026-07-28', 'tools/list', await res.clone().json())).toEqual([])
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('vary')).toBe('Origin')
    // So that a browser client can read the authorization challenge of a 401, and a 2025 session's id.
    expect(res.headers.get('access-control-expose-headers')).toBe('www-authenticate, mcp-session-id')
  })

  it('sends no CORS headers to requests without an Origin', async () => {
    const res = await handler(listTools())
    expect([...res.headers.keys()].filter((k) => k.startsWith('access-control-') || k === 'vary')).toEqual([])
  })

  it('trusts no Origin for matching the Host when any Host is accepted: a rebound name could make them agree', async () => {
    const anyHost = createFetchHandler(server, { allowedHosts: '*' })
    const rebound = await anyHost(listTools({ origin: 'http://evil.example' }, 'http://evil.example/mcp'))
    expect([rebound.status, rebound.headers.get('access-control-allow-origin')]).toEqual([403, null])
    const listed = createFetchHandler(server, { allowedHosts: '*', allowedOrigins: ['https://mcp.example.com'] })
    expect((await listed(listTools({ origin: 'https://mcp.example.com' }, 'https://mcp.example.com/mcp'))).status).toBe(200)
  })

  it("'*' lets any origin in", async () => {
    const res = await createFetchHandler(server, { allowedOrigins: '*' })(listTools({ origin: 'https://anywhere.example' }))
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anywhere.example')
  })

  it('answers preflights with every MCP header, Mcp-Param-* included', async () => {
    const res = await handler(new Request('http://127.0.0.1:3000/mcp', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, Mcp-Param-Count',
      },
    }))
    expect(res.status).toBe(204)
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
    expect(allowed).toEqual([
      'content-type', 'accept', 'authorization', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id', 'last-event-id',
      'traceparent', 'tracestate', 'baggage', 'mcp-param-region', 'mcp-param-count',
    ])
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS')
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(res.headers.get('access-control-max-age')).toBe('86400')
  })

  it('refuses preflights from foreign origins', async () => {
    const res = await handler(new Request('http://127.0.0.1:3000/mcp', { method: 'OPTIONS', headers: { origin: 'https://evil.example.com' } }))
    expect(res.status).toBe(403)
  })
})

describe('mounting', () => {
  it('serves inside a larger Hono app next to other routes', async () => {
    const app = new Hono()
    app.get('/health', (c) => c.text('ok'))
    app.route('/', createApp(server, { path: '/api/mcp' }))
    expect(await (await app.request('/health')).text()).toBe('ok')
    const res = await app.fetch(listTools({}, 'http://127.0.0.1:3000/api/mcp'))
    expect((await res.json()).result.tools).toHaveLength(1)
    expect((await app.fetch(listTools({}, 'http://127.0.0.1:3000/mcp'))).status).toBe(404)
  })

  it("hands the host's bindings to handlers as ctx.env", async () => {
    const withEnv = new McpServer({ name: 'env', version: '1.0.0' }).tool('region', { description: 'reads a binding' }, (_args, ctx) => String((ctx.env as { REGION: string }).REGION))
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'region', arguments: {}, _meta: META_2026() } }
    const res = await createApp(withEnv).fetch(new Request('http://127.0.0.1:3000/mcp', {
      method: 'POST', headers: modernHeaders('tools/call', call.params), body: JSON.stringify(call),
    }), { REGION: 'eu-west-1' })
    expect((await res.json()).result.content).toEqual([{ type: 'text', text: 'eu-west-1' }])
  })
})
