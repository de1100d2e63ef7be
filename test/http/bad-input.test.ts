/**
 * Malformed and hostile input, table-driven over real HTTP: each case gets its exact status and JSON-RPC
 * error code, never a 5xx, and the server keeps answering afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { META_2026, modernHeaders, startEverything, TEST_SECRET } from '../helpers/server.js'
import { request } from 'node:http'
import { requestVersion, validateServerMessage } from '../helpers/wire.js'

let running: RunningServer
beforeAll(async () => {
  running = await startEverything({ maxBodyBytes: 64 * 1024 }, createEverythingServer({ pageSize: 5 }))
})
afterAll(() => running.close())

interface Case {
  name: string
  body?: unknown
  raw?: string | Uint8Array
  headers?: Record<string, string | null>
  method?: string
  status: number
  code?: number
  /** What the error message must say: a clear answer, not just a code. */
  message?: RegExp
  /** The request id the error must echo. */
  id?: string | number
}

const call = (method: string, params: Record<string, unknown>, id: string | number = 7) => ({ jsonrpc: '2.0', id, method, params })
const tool = (name: string, args: unknown = {}, extra: Record<string, unknown> = {}) =>
  call('tools/call', { name, arguments: args, _meta: META_2026({ elicitation: {}, sampling: {} }), ...extra })

async function send(c: Case) {
  const body = c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body))
  const params = (c.body as { params?: Record<string, unknown> } | undefined)?.params ?? {}
  const method = (c.body as { method?: string } | undefined)?.method ?? 'tools/list'
  const headers: Record<string, string> = { ...modernHeaders(method, params) }
  for (const [k, v] of Object.entries(c.headers ?? {})) {
    if (v === null) delete headers[k]
    else headers[k] = v
  }
  const res = await raw(c.method ?? 'POST', headers, body)
  const json = res.body ? JSON.parse(res.body) : undefined
  // Every answer must be valid for the protocol version its request spoke.
  if (json) expect(validateServerMessage(requestVersion(c.body, headers['mcp-protocol-version']), method, json)).toEqual([])
  return { status: res.status, type: res.headers['content-type'], headers: res.headers, json }
}

/** node:http, so that Host and Content-Length are exactly what the case says. */
function raw(method: string, headers: Record<string, string>, body?: string | Uint8Array | string[]) {
  const url = new URL(running.url)
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    if (!Array.isArray(body)) return void req.end(body)
    for (const piece of body) req.write(piece)
    req.end()
  })
}

async function stateFor(toolName: string): Promise<string> {
  const res = await send({ name: 'setup', body: tool(toolName), status: 200 })
  return res.json.result.requestState
}

const CASES: Case[] = [
  { name: 'unparsable JSON', raw: '{"jsonrpc":', status: 400, message: /^Parse error: the body is not valid JSON$/, code: -32700 },
  { name: 'empty body', raw: '', status: 400, message: /not valid JSON/, code: -32700 },
  { name: 'batch', body: [call('tools/list', { _meta: META_2026() })], status: 400, message: /^Batch requests are not supported$/, code: -32600 },
  { name: 'JSON scalar', body: 42, status: 400, message: /must be an object/, code: -32600 },
  { name: 'wrong jsonrpc version', body: { jsonrpc: '1.0', id: 3, method: 'tools/list' }, status: 400, message: /jsonrpc must be \"2\.0\"/, code: -32600, id: 3 },
  { name: 'method not a string', body: { jsonrpc: '2.0', id: 3, method: 5 }, status: 400, message: /method must be a non-empty string/, code: -32600, id: 3 },
  { name: 'fractional id', body: { jsonrpc: '2.0', id: 1.5, method: 'tools/list', params: {} }, status: 400, message: /id must be a string or an integer/, code: -32600 },
  { name: 'null id', body: { jsonrpc: '2.0', id: null, method: 'tools/list', params: {} }, status: 400, message: /id must be a string or an integer/, code: -32600 },
  { name: 'params as array', body: { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: [] }, status: 400, message: /params must be an object/, code: -32600, id: 'a' },
  { name: 'a response instead of a request', body: { jsonrpc: '2.0', id: 9, result: {} }, status: 400, message: /accepts no responses/, code: -32600, id: 9 },
  { name: 'text/plain body', body: call('tools/list', { _meta: META_2026() }), headers: { 'content-type': 'text/plain' }, status: 415, message: /Content-Type must be application\/json/, code: -32600 },
  { name: 'no content type', raw: JSON.stringify(call('tools/list', { _meta: META_2026() })), headers: { 'content-type': null }, status: 415, message: /Content-Type must be application\/json/, code: -32600 },
  { name: 'oversized body', raw: JSON.stringify(tool('test_simple_text', { pad: 'x'.repeat(70 * 1024) })), status: 413, message: /exceeds 65536 bytes/, code: -32600 },
  { name: 'GET', method: 'GET', status: 405, message: /Method not allowed/, code: -32000 },
  { name: 'DELETE without a session id', method: 'DELETE', status: 400, message: /DELETE needs the Mcp-Session-Id/, code: -32600 },
  { name: 'a session id that is not one', body: call('tools/list', {}), headers: { 'mcp-session-id': 'stale' }, status: 404, message: /Session not found/, code: -32001 },
  { name: 'DELETE of a session id that is not one', method: 'DELETE', headers: { 'mcp-session-id': 's2.x.y.z' }, status: 404, message: /Session not found/, code: -32001 },
  { name: 'PUT', method: 'PUT', status: 405, message: /Method not allowed/, code: -32000 },
  { name: 'no _meta', body: call('tools/list', {}), status: 400, message: /envelope: params\._meta is required/, code: -32602, id: 7 },
  { name: '_meta not an object', body: call('tools/list', { _meta: 'x' }), status: 400, message: /params\._meta is required/, code: -32602, id: 7 },
  {
    name: 'no clientCapabilities',
    body: call('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    status: 400, message: /clientCapabilities\"\] is required/, code: -32602, id: 7,
  },
  {
    name: 'clientCapabilities of the wrong type',
    body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/clientCapabilities': 'all' } }),
    status: 400, message: /clientCapabilities\"\] is required/, code: -32602, id: 7,
  },
  { name: 'clientInfo without version', body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/clientInfo': { name: 'x' } } }), status: 400, message: /clientInfo\"\] must have a string name and version/, code: -32602, id: 7 },
  { name: 'unknown logLevel', body: call('tools/list', { _meta: META_2026({}, { 'io.modelcontextprotocol/logLevel': 'loud' }) }), status: 400, message: /logLevel\"\] must be one of debug, info/, code: -32602, id: 7 },
  { name: 'fractional progressToken', body: call('tools/list', { _meta: META_2026({}, { progressToken: 1.5 }) }), status: 400, message: /progressToken must be a string or an integer/, code: -32602, id: 7 },
  { name: 'header and _meta versions differ', body: call('tools/list', { _meta: META_2026() }), headers: { 'mcp-protocol-version': 'DRAFT-2026-v1' }, status: 400, message: /MCP-Protocol-Version header value 'DRAFT-2026-v1' does not match body value '2026-07-28'/, code: -32020, id: 7 },
  { name: 'no MCP-Protocol-Version header', body: call('tools/list', { _meta: META_2026() }), headers: { 'mcp-protocol-version': null }, status: 400, message: /MCP-Protocol-Version header is missing/, code: -32020, id: 7 },
  {
    name: 'unsupported version',
    body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
    headers: { 'mcp-protocol-version': '2099-01-01' }, status: 400, message: /Unsupported protocol version: 2099-01-01/, code: -32022, id: 7,
  },
  {
    name: 'a legacy version inside the modern envelope',
    body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } }),
    headers: { 'mcp-protocol-version': '2025-11-25' }, status: 400, message: /Unsupported protocol version: 2025-11-25/, code: -32022, id: 7,
  },
  { name: 'no Mcp-Method', body: call('tools/list', { _meta: META_2026() }), headers: { 'mcp-method': null }, status: 400, message: /Mcp-Method header is missing/, code: -32020, id: 7 },
  { name: 'Mcp-Method in another case', body: call('tools/list', { _meta: META_2026() }), headers: { 'mcp-method': 'TOOLS/LIST' }, status: 400, message: /Mcp-Method header value 'TOOLS\/LIST' does not match body value 'tools\/list'/, code: -32020, id: 7 },
  { name: 'Mcp-Method of another method', body: call('tools/list', { _meta: META_2026() }), headers: { 'mcp-method': 'prompts/list' }, status: 400, message: /Mcp-Method header value 'prompts\/list'/, code: -32020, id: 7 },
  { name: 'no Mcp-Name', body: tool('test_simple_text'), headers: { 'mcp-name': null }, status: 400, message: /Mcp-Name header is required for tools\/call/, code: -32020, id: 7 },
  { name: 'Mcp-Name of another tool', body: tool('test_simple_text'), headers: { 'mcp-name': 'add' }, status: 400, message: /Mcp-Name header value 'add' does not match body value 'test_simple_text'/, code: -32020, id: 7 },
  { name: 'Mcp-Name with bad base64', body: tool('test_simple_text'), headers: { 'mcp-name': '=?base64?dGVzd@==?=' }, status: 400, message: /Mcp-Name header value is not valid/, code: -32020, id: 7 },
  { name: 'Mcp-Name for resources/read differs from the uri', body: call('resources/read', { uri: 'test://static-text', _meta: META_2026() }), headers: { 'mcp-name': 'test://static-binary' }, status: 400, message: /Mcp-Name header value 'test:\/\/static-binary' does not match body value 'test:\/\/static-text'/, code: -32020, id: 7 },
  { name: 'missing Mcp-Param', body: tool('test_custom_header', { greeting: 'hi' }), status: 400, message: /Mcp-Param-Greeting header is required when argument greeting is set/, code: -32020, id: 7 },
  { name: 'Mcp-Param differs', body: tool('test_custom_header', { greeting: 'hi' }), headers: { 'mcp-param-greeting': 'ho' }, status: 400, message: /Mcp-Param-Greeting header value 'ho' does not match body value \"hi\"/, code: -32020, id: 7 },
  { name: 'Mcp-Param with bad base64 padding', body: tool('test_custom_header', { greeting: 'Hello' }), headers: { 'mcp-param-greeting': '=?base64?SGVsbG8?=' }, status: 400, message: /Mcp-Param-Greeting header value is not valid/, code: -32020, id: 7 },
  { name: 'Mcp-Param for an absent argument', body: tool('test_custom_header', { greeting: 'hi' }), headers: { 'mcp-param-greeting': 'hi', 'mcp-param-count': '3' }, status: 400, message: /Mcp-Param-Count is present but argument count is not/, code: -32020, id: 7 },
  { name: 'integer Mcp-Param differs', body: tool('test_custom_header', { greeting: 'hi', count: 3 }), headers: { 'mcp-param-greeting': 'hi', 'mcp-param-count': '4' }, status: 400, message: /Mcp-Param-Count header value '4' does not match body value 3/, code: -32020, id: 7 },
  { name: 'boolean Mcp-Param in another case', body: tool('test_custom_header', { greeting: 'hi', loud: true }), headers: { 'mcp-param-greeting': 'hi', 'mcp-param-loud': 'TRUE' }, status: 400, message: /Mcp-Param-Loud header value 'TRUE' does not match body value true/, code: -32020, id: 7 },
  { name: 'unknown method whose Mcp-Method differs: headers are checked first', body: call('nope/nothing', { _meta: META_2026() }), headers: { 'mcp-method': 'tools/list' }, status: 400, message: /Mcp-Method header value 'tools\/list'/, code: -32020, id: 7 },
  { name: 'no Mcp-Name for prompts/get', body: call('prompts/get', { name: 'test_simple_prompt', _meta: META_2026() }), headers: { 'mcp-name': null }, status: 400, message: /Mcp-Name header is required for prompts\/get/, code: -32020, id: 7 },
  { name: 'Mcp-Name of another prompt', body: call('prompts/get', { name: 'test_simple_prompt', _meta: META_2026() }), headers: { 'mcp-name': 'test_prompt_with_image' }, status: 400, message: /Mcp-Name header value 'test_prompt_with_image'/, code: -32020, id: 7 },
  {
    name: 'unsupported _meta version under a header naming another: the mismatch is found first',
    body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
    headers: { 'mcp-protocol-version': '2026-07-28' }, status: 400, message: /header value '2026-07-28' does not match body value '2099-01-01'/, code: -32020, id: 7,
  },
  { name: 'unknown method', body: call('nope/nothing', { _meta: META_2026() }), headers: { 'mcp-method': 'nope/nothing' }, status: 404, message: /^Method not found: nope\/nothing$/, code: -32601, id: 7 },
  { name: 'initialize with the modern envelope', body: call('initialize', { _meta: META_2026() }), headers: { 'mcp-method': 'initialize' }, status: 404, message: /Method not found: initialize/, code: -32601, id: 7 },
  { name: 'ping with the modern envelope', body: call('ping', { _meta: META_2026() }), headers: { 'mcp-method': 'ping' }, status: 404, message: /Method not found: ping/, code: -32601, id: 7 },
  { name: 'unknown tool', body: tool('no_such_tool'), status: 200, message: /^Unknown tool: no_such_tool$/, code: -32602, id: 7 },
  { name: 'arguments not an object', body: tool('test_simple_text', [1, 2]), status: 200, message: /params\.arguments must be an object/, code: -32602, id: 7 },
  { name: 'tool name missing', body: call('tools/call', { _meta: META_2026() }), status: 200, message: /params\.name must be a string/, code: -32602, id: 7 },
  { name: 'invalid cursor', body: call('tools/list', { cursor: 'bogus', _meta: META_2026() }), status: 200, message: /^Invalid cursor$/, code: -32602, id: 7 },
  { name: 'cursor of another list', body: call('tools/list', { cursor: 'cHJvbXB0czo1', _meta: META_2026() }), status: 200, message: /Invalid cursor/, code: -32602, id: 7 },
  ...['tools:-1', 'tools:01', 'tools:1.5', 'tools:', 'tools:5:5', 'tools'].map((forged) => ({
    name: `forged cursor ${forged}`, body: call('tools/list', { cursor: Buffer.from(forged).toString('base64url'), _meta: META_2026() }),
    status: 200, message: /^Invalid cursor$/, code: -32602, id: 7,
  })),
  { name: 'unknown prompt', body: call('prompts/get', { name: 'nope', _meta: META_2026() }), status: 200, message: /^Unknown prompt: nope$/, code: -32602, id: 7 },
  { name: 'unknown resource', body: call('resources/read', { uri: 'test://nope', _meta: META_2026() }), status: 200, message: /^Resource not found: test:\/\/nope$/, code: -32602, id: 7 },
  { name: 'completion of an unknown prompt', body: call('completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' }, _meta: META_2026() }), status: 200, message: /Unknown prompt: x/, code: -32602, id: 7 },
  { name: 'completion with a bad ref', body: call('completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' }, _meta: META_2026() }), status: 200, message: /ref\.type must be ref\/prompt or ref\/resource/, code: -32602, id: 7 },
  { name: 'inputResponses null', body: tool('test_input_required_result_elicitation', {}, { inputResponses: null }), status: 200, message: /inputResponses must be an object/, code: -32602, id: 7 },
  { name: 'inputResponses answer of the wrong shape', body: tool('test_input_required_result_elicitation', {}, { inputResponses: { user_name: 12345 } }), status: 200, message: /inputResponses\[\"user_name\"\] is not a valid elicitation\/create result/, code: -32602, id: 7 },
  { name: 'requestState not a string', body: tool('test_input_required_result_elicitation', {}, { requestState: 5 }), status: 200, message: /Invalid requestState: it must be a string/, code: -32602, id: 7 },
  { name: 'requestState garbage', body: tool('test_input_required_result_elicitation', {}, { requestState: 'garbage' }), status: 200, message: /Invalid requestState: malformed/, code: -32602, id: 7 },
  { name: 'evil Host', body: call('tools/list', { _meta: META_2026() }), headers: { host: 'evil.example.com' }, status: 403, message: /Forbidden: Host evil\.example\.com is not allowed/, code: -32600 },
  { name: 'evil Origin', body: call('tools/list', { _meta: META_2026() }), headers: { origin: 'http://evil.example.com' }, status: 403, message: /Forbidden: Origin http:\/\/evil\.example\.com is not allowed/, code: -32600 },
  { name: 'null Origin', body: call('tools/list', { _meta: META_2026() }), headers: { origin: 'null' }, status: 403, message: /Origin null is not allowed/, code: -32600 },
  {
    name: 'seed draft without clientInfo',
    body: call('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1', 'io.modelcontextprotocol/clientCapabilities': {} } }),
    headers: { 'mcp-protocol-version': 'DRAFT-2026-v1' }, status: 400, message: /clientInfo\"\] is required by DRAFT-2026-v1/, code: -32602, id: 7,
  },
  {
    name: 'seed draft header mismatch uses -32001',
    body: call('tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1' } }),
    headers: { 'mcp-protocol-version': 'DRAFT-2026-v1', 'mcp-method': 'prompts/list' }, status: 400, message: /Mcp-Method header value 'prompts\/list'/, code: -32001, id: 7,
  },
  { name: 'legacy request with an unknown 2024 version', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { 'mcp-protocol-version': '2024-11-05', 'mcp-method': null }, status: 400, message: /Unsupported protocol version: 2024-11-05/, code: -32022, id: 1 },
  { name: 'legacy unknown method is answered in-band', body: { jsonrpc: '2.0', id: 1, method: 'server/discover' }, headers: { 'mcp-protocol-version': '2025-06-18' }, status: 200, code: -32601, id: 1 },
]

describe('bad input', () => {
  it.each(CASES)('$name -> $status $code', async (c) => {
    const res = await send(c)
    expect(res.status).toBe(c.status)
    if (c.status === 200 && c.code === undefined) return
    expect(res.type).toBe('application/json')
    expect(res.json.error.code).toBe(c.code)
    expect(res.json.error.message).toMatch(c.message!)
    if (c.id === undefined) expect(res.json).not.toHaveProperty('id')
    else expect(res.json.id).toBe(c.id)
  })

  it('unsupported version errors name what is supported', async () => {
    const res = await send(CASES.find((c) => c.name === 'unsupported version')!)
    expect(res.json.error.data).toEqual({ supported: ['2026-07-28', 'DRAFT-2026-v1', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2099-01-01' })
  })

  it('invalid cursors are named in the error; a cursor the server issued works', async () => {
    const refused = await send(CASES.find((c) => c.name === 'invalid cursor')!)
    expect(refused.json.error.data).toEqual({ cursor: 'bogus' })
    const first = await send({ name: 'first page', body: call('tools/list', { _meta: META_2026() }), status: 200 })
    expect(first.json.result.tools).toHaveLength(5)
    const next = await send({ name: 'next page', body: call('tools/list', { cursor: first.json.result.nextCursor, _meta: META_2026() }), status: 200 })
    expect(next.json.result.tools.map((t: { name: string }) => t.name)).not.toContain(first.json.result.tools[0].name)
  })

    it('405 answers name the allowed methods', async () => {
    const res = await send({ name: 'GET', method: 'GET', status: 405 })
    expect(res.headers.allow).toBe('GET, POST, DELETE, OPTIONS')
  })

  it('requestState that was tampered with, or made for another request, is refused', async () => {
    const state = await stateFor('test_input_required_result_tampered_state')
    const answer = { confirm: { action: 'accept', content: { ok: true } } }
    const good = await send({ name: 'intact', body: tool('test_input_required_result_tampered_state', {}, { inputResponses: answer, requestState: state }), status: 200 })
    expect(good.json.result.content).toEqual([{ type: 'text', text: 'State intact' }])
    const [head, payload, mac] = state.split('.')
    const flipped = `${head}.${payload}.${mac!.slice(0, -2)}${mac!.endsWith('A') ? 'B' : 'A'}A`
    for (const requestState of [`${state}-TAMPERED`, flipped, `${head}.${payload}x.${mac}`]) {
      const res = await send({ name: 'tampered', body: tool('test_input_required_result_tampered_state', {}, { inputResponses: answer, requestState }), status: 200 })
      expect(res.json.error.code).toBe(-32602)
    }
    // Bound to the tool and its arguments: replaying it elsewhere fails.
    const foreign = await send({ name: 'foreign', body: tool('test_input_required_result_request_state', {}, { inputResponses: answer, requestState: state }), status: 200 })
    expect(foreign.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('different request') })
  })

  it('expired requestState is refused', async () => {
    const short = await startEverything({ requestState: { secret: TEST_SECRET, ttlMs: 1 } })
    try {
      const headers = modernHeaders('tools/call', { name: 'test_input_required_result_elicitation' })
      const first = await (await fetch(short.url, { method: 'POST', headers, body: JSON.stringify(tool('test_input_required_result_elicitation')) })).json()
      await new Promise((r) => setTimeout(r, 5))
      const retry = tool('test_input_required_result_elicitation', {}, {
        inputResponses: { user_name: { action: 'accept', content: { name: 'A' } } },
        requestState: first.result.requestState,
      })
      const res = await (await fetch(short.url, { method: 'POST', headers, body: JSON.stringify(retry) })).json()
      expect(res.error).toMatchObject({ code: -32602, message: expect.stringContaining('expired') })
    } finally {
      await short.close()
    }
  })

  it('a body of exactly the limit is read, one byte more is 413, with or without Content-Length', async () => {
    const limit = 64 * 1024
    const sized = (bytes: number) => {
      const base = JSON.stringify(tool('test_simple_text', { pad: '' }))
      return JSON.stringify(tool('test_simple_text', { pad: 'x'.repeat(bytes - base.length) }))
    }
    const headers = modernHeaders('tools/call', { name: 'test_simple_text' })
    expect(sized(limit)).toHaveLength(limit)
    expect((await raw('POST', headers, sized(limit))).status).toBe(200)
    expect((await raw('POST', headers, sized(limit + 1))).status).toBe(413)
    const chunked = (body: string) => raw('POST', { ...headers, 'transfer-encoding': 'chunked' }, [body.slice(0, 1000), body.slice(1000)])
    expect((await chunked(sized(limit))).status).toBe(200)
    expect((await chunked(sized(limit + 1))).status).toBe(413)
  })

  it('a chunked body without Content-Length is cut off at the limit', async () => {
    const { request } = await import('node:http')
    const url = new URL(running.url)
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...modernHeaders('tools/list'), 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"')
      req.write('x'.repeat(100 * 1024))
      req.end('"}}')
    })
    expect(status).toBe(413)
  })

  it('completes an argument named after an Object.prototype member with nothing, not with that member', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const ref of [{ type: 'ref/prompt', name: 'test_prompt_with_arguments' }, { type: 'ref/resource', uri: 'test://template/{id}/data' }]) {
        const res = await send({ name, body: call('completion/complete', { ref, argument: { name, value: 't' }, _meta: META_2026() }), status: 200 })
        expect([name, ref.type, res.status, res.json.result?.completion.values]).toEqual([name, ref.type, 200, []])
      }
    }
  })

  it('still serves requests after all of it', async () => {
    const res = await send({ name: 'discover', body: call('server/discover', { _meta: META_2026() }), status: 200 })
    expect(res.status).toBe(200)
    expect(res.json.result.supportedVersions).toContain('2026-07-28')
  })
})
