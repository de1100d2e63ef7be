import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { digest, importStateKey, stateCodec } from '../../src/exchange/request-state.js'

const payload = { n: 'server', m: 'tools/call', d: 'abc', x: Date.now() + 60_000, a: { k: { action: 'accept' } }, s: {} }

describe('requestState sealing', () => {
  const codec = stateCodec('k'.repeat(32))

  it('round-trips what it sealed', async () => {
    expect(await codec.open(await codec.seal(payload))).toEqual(payload)
  })

  it('refuses a changed payload, a changed MAC, a foreign key and an expired state', async () => {
    const token = await codec.seal(payload)
    const [v, id, body, mac] = token.split('.')
    const forged = Buffer.from(JSON.stringify({ ...payload, a: { k: { action: 'decline' } } })).toString('base64url')
    const forgery = { code: -32602, message: 'Invalid requestState: its signature does not match' }
    await expect(codec.open(`${v}.${id}.${forged}.${mac}`)).rejects.toMatchObject(forgery)
    await expect(codec.open(`${v}.${id}.${body}.${mac!.slice(1)}A`)).rejects.toMatchObject(forgery)
    await expect(codec.open('nonsense')).rejects.toMatchObject({ code: -32602 })
    await expect(codec.open(`s1.${body}.${mac}`)).rejects.toMatchObject({ code: -32602, message: 'Invalid requestState: malformed' })
    // Sealed under another key: the operator's fault (instances without one shared secret), and said so.
    await expect(stateCodec('o'.repeat(32)).open(token)).rejects.toMatchObject({
      code: -32602, message: 'Invalid requestState: it was sealed with another requestState secret: every instance serving this server must share one',
    })
    await expect(stateCodec(undefined).open(token)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('this one has no shared secret') })
    const expired = await codec.seal({ ...payload, x: Date.now() - 1 })
    await expect(codec.open(expired)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('expired') })
  })

  it('refuses short secrets, when the handler is made', async () => {
    await expect(importStateKey('short')).rejects.toThrow(/32 bytes/)
    expect(() => createFetchHandler(new McpServer({ name: 's', version: '1' }), { requestState: { secret: 'short' } })).toThrow(/32 bytes/)
  })

  it('digests params independently of key order', async () => {
    expect(await digest({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(await digest({ b: { d: [1, 2], c: 2 }, a: 1 }))
    expect(await digest({ a: 1 })).not.toBe(await digest({ a: 2 }))
  })
})
