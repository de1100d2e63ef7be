/** Protocol versions as profiles: 2026-07-28, the seed draft DRAFT-2026-v1, and the 2025 legacy era. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, sessions, tasks } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { META_2026, rpc, TEST_SECRET } from '../helpers/server.js'

const everything = createFetchHandler(createEverythingServer(), { requestState: { secret: TEST_SECRET }, extensions: [tasks()], sessions: sessions() })

const SEED_META = {
  'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1',
  'io.modelcontextprotocol/clientInfo': { name: 'seed-client', version: '0.0.1' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

describe('2026-07-28', () => {
  it('puts caching hints on discover, lists and reads, and serverInfo on every result', async () => {
    for (const [method, params] of [
      ['server/discover', {}], ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}],
      ['resources/templates/list', {}], ['resources/read', { uri: 'test://static-text' }],
    ] as const) {
      const { body } = await rpc(everything, method, { ...params, _meta: META_2026() })
      expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' })
      expect(body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcp-edge-everything' })
    }
    const { body } = await rpc(everything, 'tools/call', { name: 'test_simple_text', _meta: META_2026() })
    expect(body.result).not.toHaveProperty('ttlMs')
    expect(body.result._meta['io.modelcontextprotocol/serverInfo']).toBeDefined()
  })

  it('caching hints are configurable per list and per resource', async () => {
    const server = new McpServer({
      name: 'cache', version: '1',
      cache: { tools: { ttlMs: 60_000, cacheScope: 'public' }, discover: { ttlMs: 3_600_000, cacheScope: 'public' } },
    })
      .tool('t', { description: 't' }, () => 't')
      .resource('test://a', { name: 'a', cache: { ttlMs: 5_000, cacheScope: 'public' } }, () => 'a')
      .resource('test://b', { name: 'b' }, () => 'b')
    const handler = createFetchHandler(server)
    expect((await rpc(handler, 'tools/list', { _meta: META_2026() })).body.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' })
    expect((await rpc(handler, 'server/discover', { _meta: META_2026() })).body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' })
    expect((await rpc(handler, 'resources/list', { _meta: META_2026() })).body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    expect((await rpc(handler, 'resources/read', { uri: 'test://a', _meta: META_2026() })).body.result).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' })
    expect((await rpc(handler, 'resources/read', { uri: 'test://b', _meta: META_2026() })).body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
  })

  it('pages every list with opaque cursors', async () => {
    const server = new McpServer({ name: 'pages', version: '1', pageSize: 3 })
    for (let i = 0; i < 8; i++) server.tool(`tool_${i}`, { description: `tool ${i}` }, () => `${i}`)
    const handler = createFetchHandler(server)
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const { body } = await rpc(handler, 'tools/list', { ...(cursor && { cursor }), _meta: META_2026() })
      names.push(...body.result.tools.map((t: { name: string }) => t.name))
      cursor = body.result.nextCursor
      pages++
    } while (cursor)
    expect(pages).toBe(3)
    expect(names).toEqual(Array.from({ length: 8 }, (_, i) => `tool_${i}`))
  })

  it('a server without prompts has no prompts/list: -32601 with 404, and discover says so', async () => {
    const handler = createFetchHandler(new McpServer({ name: 'tools-only', version: '1' }).tool('t', { description: 't' }, () => 't'))
    const { body } = await rpc(handler, 'server/discover', { _meta: META_2026() })
    expect(body.result.capabilities).not.toHaveProperty('prompts')
    const res = await rpc(handler, 'prompts/list', { _meta: META_2026() })
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe(-32601)
  })
})

describe('DRAFT-2026-v1 (the seed draft)', () => {
  it('discover carries serverInfo in its body, and the caching hints 2026-07-28 has (SEP-2549 reached the draft)', async () => {
    const { body } = await rpc(everything, 'server/discover', { _meta: SEED_META })
    expect(body.result).toMatchObject({ resultType: 'complete', serverInfo: { name: 'mcp-edge-everything', version: '0.1.0' }, ttlMs: 0, cacheScope: 'private' })
    expect(body.result).not.toHaveProperty('_meta')
  })

  it('lists, calls and MRTR work with the seed error codes', async () => {
    expect((await rpc(everything, 'tools/list', { _meta: SEED_META })).body.result.tools.length).toBeGreaterThan(10)
    const first = await rpc(everything, 'tools/call', { name: 'test_input_required_result_elicitation', _meta: { ...SEED_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } })
    expect(first.body.result.resultType).toBe('input_required')
    const missing = await rpc(everything, 'tools/call', { name: 'test_missing_capability', _meta: SEED_META })
    expect(missing.status).toBe(400)
    expect(missing.body.error).toMatchObject({ code: -32003, data: { requiredCapabilities: { sampling: {} } } })
  })

  it('when the seed draft is turned off, its clients get the seed code for an unsupported version', async () => {
    const handler = createFetchHandler(createEverythingServer({ versions: ['2026-07-28'] }), { extensions: [tasks()] })
    const { status, body } = await rpc(handler, 'server/discover', { _meta: SEED_META })
    expect(status).toBe(400)
    expect(body.error).toMatchObject({ code: -32602, data: { supported: ['2026-07-28'], requested: 'DRAFT-2026-v1' } })
  })
})

describe('legacy 2025 era', () => {
  async function legacy(body: unknown, headers: Record<string, string> = {}) {
    const res = await everything(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    }))
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  it.each([
    ['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18'], ['2025-03-26', '2025-03-26'], ['2024-11-05', '2025-11-25'],
  ])('initialize asking for %s gets %s, and a session id', async (asked, answered) => {
    const res = await legacy({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]+$/)
    const { result } = JSON.parse(res.text)
    expect(result).toMatchObject({ protocolVersion: answered, serverInfo: { name: 'mcp-edge-everything' } })
    expect(result.capabilities).toEqual({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true }, completions: {}, logging: {} })
    expect(result).not.toHaveProperty('resultType')
  })

  it('notifications/initialized is accepted; GET streams are refused with 405', async () => {
    expect((await legacy({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-11-25' })).status).toBe(202)
    const get = await everything(new Request('http://127.0.0.1/mcp', { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' } }))
    expect(get.status).toBe(405)
  })

  it('serves requests with no session: results carry no 2026 fields, empty results stay empty', async () => {
    const list = JSON.parse((await legacy({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18' })).text)
    expect(list.result.tools.length).toBeGreaterThan(10)
    expect(Object.keys(list.result)).toEqual(['tools'])
    const ping = JSON.parse((await legacy({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' })).text)
    expect(ping).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
  })

  it('a server serving only 2026-07-28 refuses legacy clients with the versions it has', async () => {
    const handler = createFetchHandler(createEverythingServer({ versions: ['2026-07-28'] }), { extensions: [tasks()] })
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    }))
    expect(res.status).toBe(400)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect((await res.json()).error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } })
  })
})
