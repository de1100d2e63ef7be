/**
 * The seed draft's wire (DRAFT-2026-v1) as its clients see it, on a running everything server: errors in
 * the dialect of the version the header names when the body names one we do not know, and the caching hints
 * of 2026-07-28 on discover, lists and reads. Every answer is checked against the seed draft's schema.
 */
import { expect, it } from 'vitest'
import { modernHeaders } from './server.js'
import { validateServerMessage } from './wire.js'

const DRAFT = 'DRAFT-2026-v1'
const meta = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'draft-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
})

async function post(url: string, method: string, params: Record<string, unknown>, headerVersion: string) {
  const res = await fetch(url, { method: 'POST', headers: modernHeaders(method, params, headerVersion), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await res.json() as Record<string, any>
  expect(validateServerMessage(headerVersion === DRAFT ? DRAFT : '2026-07-28', method, body)).toEqual([])
  return { status: res.status, body }
}

export function draftWireChecks(url: () => string): void {
  it('answers a header/_meta version mismatch in the dialect of the version the header names', async () => {
    // The body names a version nobody knows: the header's DRAFT-2026-v1 decides the code (-32001).
    const unknownBody = await post(url(), 'server/discover', { _meta: meta('v999.0.0') }, DRAFT)
    expect([unknownBody.status, unknownBody.body.error.code]).toEqual([400, -32001])
    // The body names the draft and the header another value: the draft's code again.
    const badHeader = await post(url(), 'server/discover', { _meta: meta(DRAFT) }, 'DRAFT-2026-v0')
    expect([badHeader.status, badHeader.body.error.code]).toEqual([400, -32001])
    // The release keeps its own.
    const released = await post(url(), 'server/discover', { _meta: meta('v999.0.0') }, '2026-07-28')
    expect([released.status, released.body.error.code]).toEqual([400, -32020])
  })

  it('puts the caching hints of 2026-07-28 on discover, lists and reads at DRAFT-2026-v1 too, the same values', async () => {
    for (const [method, params] of [
      ['server/discover', {}], ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}],
      ['resources/templates/list', {}], ['resources/read', { uri: 'test://static-text' }],
    ] as const) {
      const draft = await post(url(), method, { ...params, _meta: meta(DRAFT) }, DRAFT)
      const released = await post(url(), method, { ...params, _meta: meta('2026-07-28') }, '2026-07-28')
      expect(draft.body.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) })
      expect([draft.body.result.ttlMs, draft.body.result.cacheScope]).toEqual([released.body.result.ttlMs, released.body.result.cacheScope])
    }
  })
}
