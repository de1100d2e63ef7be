/** The wire validator must catch what it is there to catch, or every test leaning on it proves nothing. */
import { describe, expect, it } from 'vitest'
import { validateServerMessage } from './wire.js'

const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } }

describe('validateServerMessage', () => {
  it('accepts a valid list result and flags one without caching hints or resultType', () => {
    const ok = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private', _meta: serverInfo } }
    expect(validateServerMessage('2026-07-28', 'tools/list', ok)).toEqual([])
    expect(validateServerMessage('2026-07-28', 'tools/list', { ...ok, result: { resultType: 'complete', tools: [] } }).join()).toMatch(/ttlMs/)
    expect(validateServerMessage('2026-07-28', 'tools/list', { ...ok, result: { tools: [], ttlMs: 0, cacheScope: 'private' } }).join()).toMatch(/resultType/)
  })

  it('checks error data by code, and notifications by method', () => {
    const unsupported = { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x' } }
    expect(validateServerMessage('2026-07-28', 'tools/list', unsupported).join()).toMatch(/data/)
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1 } }
    expect(validateServerMessage('2026-07-28', 'tools/call', progress).join()).toMatch(/progress/)
    const image = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [{ type: 'image', data: 'x' }] } }
    expect(validateServerMessage('2026-07-28', 'tools/call', image).join()).toMatch(/mimeType|anyOf/)
  })

  it('uses the seed draft schema for DRAFT-2026-v1 answers', () => {
    const discover = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', supportedVersions: ['DRAFT-2026-v1'], capabilities: {} } }
    expect(validateServerMessage('DRAFT-2026-v1', 'server/discover', discover).join()).toMatch(/serverInfo/)
  })

  it('checks 2025-era answers against the 2025-11-25 schema, and flags 2026 fields in them', () => {
    const init = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } }
    expect(validateServerMessage('legacy', 'initialize', init)).toEqual([])
    const { serverInfo: _, ...anonymous } = init.result
    expect(validateServerMessage('legacy', 'initialize', { ...init, result: anonymous }).join()).toMatch(/serverInfo/)
    expect(validateServerMessage('2025-06-18', 'tools/list', { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't' }] } }).join()).toMatch(/inputSchema/)
    expect(validateServerMessage('2025-11-25', 'tools/list', { jsonrpc: '2.0', id: 1, result: { tools: [], resultType: 'complete' } }).join()).toMatch(/resultType/)
    expect(validateServerMessage('2025-03-26', 'tools/call', { jsonrpc: '2.0', method: 'notifications/progress', params: {} }).join()).toMatch(/progress/)
  })

  it('checks the tasks extension\'s answers against its own schema', () => {
    const task = { taskId: 't', status: 'completed', createdAt: 'x', lastUpdatedAt: 'x', ttlMs: 1, result: { content: [] } }
    const get = { jsonrpc: '2.0', id: 1, result: { ...task, resultType: 'complete' } }
    expect(validateServerMessage('2026-07-28', 'tasks/get', get)).toEqual([])
    const { ttlMs: _, ...noTtl } = get.result
    expect(validateServerMessage('2026-07-28', 'tasks/get', { ...get, result: noTtl }).join()).toMatch(/ttlMs/)
    expect(validateServerMessage('2026-07-28', 'tasks/update', { jsonrpc: '2.0', id: 1, result: {} }).join()).toMatch(/resultType/)
    const created = { jsonrpc: '2.0', id: 1, result: { ...task, status: 'done', resultType: 'task' } }
    expect(validateServerMessage('2026-07-28', 'tools/call', created).join()).toMatch(/status/)
    expect(validateServerMessage('2026-07-28', 'tools/call', { jsonrpc: '2.0', method: 'notifications/tasks', params: {} }).join()).toMatch(/taskId/)
  })

  it('checks answers to versions nobody knows in the newest dialect', () => {
    expect(validateServerMessage('2099-01-01', 'tools/list', { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x' } }).join()).toMatch(/data/)
  })
})
