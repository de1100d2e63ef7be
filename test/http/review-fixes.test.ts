/** Edge cases found in review: each test pins down one behaviour that was wrong once. */
import { describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, type HandlerOptions, McpServer, sessions, tasks } from '../../src/index.js'
import { decodeHeaderValue, encodeHeaderValue, headerMatches } from '../../src/protocol/headers.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { META_2026, modernHeaders, rpc, TEST_SECRET } from '../helpers/server.js'
import { namedUsers } from '../helpers/auth.js'

const legacyHeaders = (version?: string) => ({ 'content-type': 'application/json', ...(version && { 'mcp-protocol-version': version }) })

describe('legacy era', () => {
  const handler = createFetchHandler(createEverythingServer({ versions: ['2026-07-28', '2025-11-25'] }), { extensions: [tasks()], sessions: sessions() })

  it('initialize works even when 2025-03-26 (the headerless default) is not served', async () => {
    const { status, body } = await rpc(handler, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, { headers: legacyHeaders() })
    expect(status).toBe(200)
    expect(body.result.protocolVersion).toBe('2025-11-25')
  })

  it('a headerless request is then refused as a missing header, not an unsupported version', async () => {
    const { status, body } = await rpc(handler, 'tools/list', {}, { headers: legacyHeaders() })
    expect(status).toBe(400)
    expect(body.error.code).toBe(-32020)
  })

  it('initialize advertises listChanged and subscribe where sessions carry them (a GET stream), neither without sessions', async () => {
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }
    const { body } = await rpc(handler, 'initialize', params, { headers: legacyHeaders() })
    expect(body.result.capabilities).toEqual({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true }, completions: {}, logging: {} })
    const sessionless = createFetchHandler(createEverythingServer({ versions: ['2026-07-28', '2025-11-25'] }), { extensions: [tasks()] })
    const { body: plain } = await rpc(sessionless, 'initialize', params, { headers: legacyHeaders() })
    expect(plain.result.capabilities).toEqual({ tools: {}, prompts: {}, resources: {}, completions: {}, logging: {} })
  })

  it('legacy resources/read carries nothing but contents', async () => {
    const { body } = await rpc(handler, 'resources/read', { uri: 'test://static-text' }, { headers: legacyHeaders('2025-11-25') })
    expect(Object.keys(body.result)).toEqual(['contents'])
  })
})

describe('handlers and registry', () => {
  it('memo and input keys are own properties only (no prototype names)', async () => {
    let computed = 0
    const server = new McpServer({ name: 'p', version: '1' }).tool('t', { description: 't' }, async (_a, ctx) => {
      await ctx.memo('constructor', () => ++computed)
      const answer = await ctx.elicit('toString', { message: 'm', requestedSchema: { type: 'object', properties: {} } })
      return `${computed} ${answer.action}`
    })
    const handler = createFetchHandler(server)
    const first = await rpc(handler, 'tools/call', { name: 't', _meta: META_2026({ elicitation: {} }) })
    expect(first.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { toString: { method: 'elicitation/create' } } })
    const second = await rpc(handler, 'tools/call', {
      name: 't', _meta: META_2026({ elicitation: {} }),
      inputResponses: { toString: { action: 'decline' } }, requestState: first.body.result.requestState,
    })
    expect(second.body.result.content).toEqual([{ type: 'text', text: '1 decline' }])
  })

  it('a resource handler returning no contents means not found', async () => {
    const server = new McpServer({ name: 'r', version: '1' }).resource('test://empty', { name: 'e' }, () => [])
    const { body } = await rpc(createFetchHandler(server), 'resources/read', { uri: 'test://empty', _meta: META_2026() })
    expect(body.error).toMatchObject({ code: -32602, data: { uri: 'test://empty' } })
  })

  it('validation of a huge invalid argument stops early and reports a bounded number of issues', async () => {
    const server = new McpServer({ name: 'v', version: '1' })
      .tool('xs', { input: { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } } }, () => 'ok')
    const { body } = await rpc(createFetchHandler(server, { maxBodyBytes: 8 * 1024 * 1024 }), 'tools/call', { name: 'xs', arguments: { xs: Array(200_000).fill(1) }, _meta: META_2026() })
    expect(body.result.isError).toBe(true)
    expect(body.result.content[0].text.length).toBeLessThan(2000)
  })

  it('unexpected errors reach the client as "Internal error" with an error id, never with their message', async () => {
    const server = new McpServer({ name: 'x', version: '1' }).prompt('p', { description: 'p' }, () => {
      throw new Error('connect postgres://admin:hunter2@db failed')
    })
    const { body } = await rpc(createFetchHandler(server), 'prompts/get', { name: 'p', _meta: META_2026() })
    expect(body.error).toEqual({ code: -32603, message: expect.stringMatching(/^Internal error \(error id [0-9a-f]{8}\)$/) })
  })
})

describe('requestState binding', () => {
  const asks = () => new McpServer({ name: 'bind', version: '1' })
    .tool('confirm', { description: 'c' }, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action)
  const retry = (state: string) => ({ name: 'confirm', _meta: META_2026({ elicitation: {} }), inputResponses: { ok: { action: 'accept' } }, requestState: state })
  const withUser = (user: string, params: Record<string, unknown>) => ({ ...modernHeaders('tools/call', params), authorization: `Bearer ${user}` })

  it('is bound to the principal: a state issued to alice does not work for bob', async () => {
    const options: HandlerOptions = { auth: bearerAuth(namedUsers()), requestState: { secret: TEST_SECRET } }
    const handler = createFetchHandler(asks(), options)
    const params = { name: 'confirm', _meta: META_2026({ elicitation: {} }) }
    const first = await rpc(handler, 'tools/call', params, { headers: withUser('alice', params) })
    const state = first.body.result.requestState
    expect((await rpc(handler, 'tools/call', retry(state), { headers: withUser('alice', retry(state)) })).body.result.content).toEqual([{ type: 'text', text: 'accept' }])
    const stolen = await rpc(handler, 'tools/call', retry(state), { headers: withUser('bob', retry(state)) })
    expect(stolen.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('principal') })
  })

  it('is bound to the server: another server sharing the secret refuses it', async () => {
    const first = await rpc(createFetchHandler(asks(), { requestState: { secret: TEST_SECRET } }), 'tools/call', { name: 'confirm', _meta: META_2026({ elicitation: {} }) })
    const other = new McpServer({ name: 'other', version: '1' })
      .tool('confirm', { description: 'c' }, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action)
    const res = await rpc(createFetchHandler(other, { requestState: { secret: TEST_SECRET } }), 'tools/call', retry(first.body.result.requestState))
    expect(res.body.error.code).toBe(-32602)
  })
})

describe('hosts', () => {
  const server = new McpServer({ name: 'h', version: '1' }).tool('t', { description: 't' }, () => 't')
  it('only loopback Host values pass by default; "*" widens it', async () => {
    expect((await rpc(createFetchHandler(server), 'tools/list', { _meta: META_2026() }, { url: 'https://mcp.example.com/mcp' })).status).toBe(403)
    expect((await rpc(createFetchHandler(server, { allowedHosts: '*' }), 'tools/list', { _meta: META_2026() }, { url: 'https://mcp.example.com/mcp' })).status).toBe(200)
  })
})

describe('header values', () => {
  it('keep a leading byte-order mark', () => {
    expect(decodeHeaderValue(encodeHeaderValue('\uFEFFabc'))).toBe('\uFEFFabc')
  })
  it('compare integers in decimal only', () => {
    for (const h of ['0x2A', '4.2e1', '0b101010', ' 42']) expect(headerMatches(h, 42, 'integer')).toBe(false)
    expect(headerMatches('-42', -42, 'integer')).toBe(true)
  })
})
