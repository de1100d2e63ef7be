/** The wire's small pure pieces, case by case: gaps the mutation run found in the HTTP-level tests. */
import { describe, expect, it } from 'vitest'
import { base64UrlToBytes, bytesToBase64, bytesToBase64Url } from '../../src/protocol/base64.js'
import { readEnvelope } from '../../src/protocol/envelope.js'
import { McpError } from '../../src/protocol/errors.js'
import { classify, errorResponse, notification } from '../../src/protocol/jsonrpc.js'
import { headerMatches, paramHeaders } from '../../src/protocol/headers.js'
import { distinctTopics, fnv1a, memoryBackplane, parseEvent, shardOf } from '../../src/state/backplane.js'

describe('base64', () => {
  it('encodes, and decodes base64url with or without padding; refuses anything else', () => {
    expect(bytesToBase64(new Uint8Array([1, 2]))).toBe('AQI=')
    expect(bytesToBase64Url(new Uint8Array([251, 255]))).toBe('-_8')
    expect([...base64UrlToBytes('-_8')]).toEqual([251, 255])
    expect([...base64UrlToBytes('AQ')]).toEqual([1])
    expect([...base64UrlToBytes('AQI')]).toEqual([1, 2])
    for (const bad of ['ab+', '+ab', 'a b', 'AQ==']) expect(() => base64UrlToBytes(bad)).toThrow('not base64url')
  })
})

describe('JSON-RPC messages', () => {
  it('sorts what is not a request', () => {
    const refused = (value: unknown) => { try { classify(value); return undefined } catch (e) { return (e as McpError).message } }
    expect(refused({ jsonrpc: '2.0', id: 1, result: {} })).toBe('The server accepts no responses')
    expect(refused({ jsonrpc: '2.0', id: 1, error: {} })).toBe('The server accepts no responses')
    expect(refused({ jsonrpc: '2.0', id: 1 })).toBe('The server accepts no messages without a method')
    expect(refused({ jsonrpc: '2.0', id: 1, method: '' })).toBe('method must be a non-empty string')
    expect(refused({ jsonrpc: '2.0', id: 1, method: 'm', params: [] })).toBe('params must be an object')
    expect(refused({ jsonrpc: '2.0', id: 1, method: 'm', params: undefined })).toBeUndefined()
    expect(refused({ jsonrpc: '2.0', method: 'm' })).toBeUndefined()
  })

  it('writes notifications and errors with only the members they have', () => {
    expect(notification('n')).toStrictEqual({ jsonrpc: '2.0', method: 'n' })
    expect(errorResponse(undefined, new McpError(-1, 'm'))).toStrictEqual({ jsonrpc: '2.0', error: { code: -1, message: 'm' } })
    expect(errorResponse(0, new McpError(-1, 'm', { d: 1 }))).toStrictEqual({ jsonrpc: '2.0', id: 0, error: { code: -1, message: 'm', data: { d: 1 } } })
  })

  it('refuses an empty protocol version and a clientInfo without a string name', () => {
    const meta = (extra: Record<string, unknown>) => ({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, ...extra } })
    expect(() => readEnvelope(meta({ 'io.modelcontextprotocol/protocolVersion': '' }))).toThrow('_meta["io.modelcontextprotocol/protocolVersion"] is required')
    expect(() => readEnvelope(meta({ 'io.modelcontextprotocol/clientInfo': { name: 1, version: '1' } }))).toThrow(/clientInfo"\] must have a string name/)
  })
})

describe('x-mcp-header', () => {
  const schema = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties: props, ...extra })
  it('names where a bad annotation is, and refuses a name twice whatever its case', () => {
    expect(() => paramHeaders(schema({ a: { type: 'string', 'x-mcp-header': 5 } }))).toThrow('x-mcp-header at inputSchema.properties.a: must be a non-empty string')
    expect(() => paramHeaders(schema({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } })))
      .toThrow('x-mcp-header at inputSchema.properties.b: "REGION" is already used by .properties.a')
    const nowhere = { type: 'string', 'x-mcp-header': 'X' }
    expect(() => paramHeaders(schema({}, { $defs: { d: nowhere } }))).toThrow('x-mcp-header at inputSchema.$defs.d:')
    expect(() => paramHeaders(schema({}, { allOf: [nowhere] }))).toThrow('x-mcp-header at inputSchema.allOf[0]:')
    expect(() => paramHeaders(schema({}, { prefixItems: [{}, nowhere] }))).toThrow('x-mcp-header at inputSchema.prefixItems[1]:')
    expect(() => paramHeaders(schema({}, { not: nowhere }))).toThrow('x-mcp-header at inputSchema.not:')
  })

  it('compares header and body by type', () => {
    expect([headerMatches('1', 1, 'string'), headerMatches('true', 'true', 'boolean'), headerMatches('42', '42', 'integer')]).toEqual([false, false, false])
    expect([headerMatches('42.00', 42, 'integer'), headerMatches('42.01', 42, 'integer'), headerMatches('true', true, 'boolean')]).toEqual([true, false, true])
  })
})

describe('backplane pieces', () => {
  it('FNV-1a and shards', () => {
    expect([fnv1a(''), fnv1a('a'), fnv1a('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968])
    expect(shardOf('foobar', 4)).toBe(0xbf9cf968 % 4)
  })

  it('topics each once: the array itself when none repeats, a copy without the repeats otherwise', () => {
    const once = ['a', 'b']
    expect(distinctTopics(once)).toBe(once)
    const twice = ['a', 'b', 'a']
    expect(distinctTopics(twice)).toEqual(['a', 'b'])
    expect(twice).toEqual(['a', 'b', 'a'])
  })

  it('a subscriber named on a topic twice hears each event on it once', async () => {
    const bp = memoryBackplane()
    const got: string[] = []
    const sub = await bp.subscribe(['t', 't', 'u'], (e) => void got.push(e.topic!))
    await bp.publish({ topic: 't' })
    await sub.close()
    await bp.publish({ topic: 't' })
    expect([got, bp.size]).toEqual([['t'], 0])
  })

  it('reads only events: a topic, and an object payload if any', () => {
    expect(parseEvent('{"topic":"list:tools"}')).toStrictEqual({ topic: 'list:tools' })
    expect(parseEvent('{"topic":"t","data":{"uri":"a://b"}}')).toStrictEqual({ topic: 't', data: { uri: 'a://b' } })
    for (const bad of ['x', '[]', '{"topic":""}', '{"topic":1}', '{"topic":"t","data":[1]}']) expect(parseEvent(bad)).toBeUndefined()
  })

  it('keeps the trace context a change carries, up to 128 characters; a longer or foreign one goes, not the change', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    expect(parseEvent(JSON.stringify({ topic: 't', trace: traceparent }))).toStrictEqual({ topic: 't', trace: traceparent })
    expect(parseEvent(JSON.stringify({ topic: 't', trace: 'x'.repeat(128) }))).toStrictEqual({ topic: 't', trace: 'x'.repeat(128) })
    expect(parseEvent(JSON.stringify({ topic: 't', trace: 'x'.repeat(129) }))).toStrictEqual({ topic: 't' })
    expect(parseEvent(JSON.stringify({ topic: 't', trace: 55 }))).toStrictEqual({ topic: 't' })
  })

  it('a subscriber that throws is reported and does not keep the others from the event', async () => {
    const errors: unknown[] = []
    const bp = memoryBackplane({ onError: (e) => errors.push(e) })
    const got: string[] = []
    await bp.subscribe(['t'], () => { throw new Error('bad subscriber') })
    await bp.subscribe(['t'], (e) => void got.push(e.topic!))
    await bp.publish({ topic: 't' })
    expect([got, (errors[0] as Error).message]).toEqual([['t'], 'bad subscriber'])
  })
})
