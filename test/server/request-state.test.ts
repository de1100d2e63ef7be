import { describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, McpServer, memoryUsedStates } from '../../src/index.js'
import { encryptedStateCodec } from '../../src/exchange/encrypted-state.js'
import { digest, importStateKey, stateCodec } from '../../src/exchange/request-state.js'
import { as, namedUsers } from '../helpers/auth.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'

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

describe('encrypted requestState', () => {
  const secret = 'k'.repeat(32)
  const codec = encryptedStateCodec(secret)
  const memo = { ...payload, s: { card: 'four-two-four-two' } }

  it('round-trips what it sealed, and shows the client nothing of it', async () => {
    const token = await codec.seal(memo)
    expect(await codec.open(token)).toEqual(memo)
    expect(token.startsWith('e1.')).toBe(true)
    expect(Buffer.from(token.split('.')[2]!, 'base64url').toString('latin1')).not.toContain('four-two')
    // The same payload twice: two different tokens (a fresh IV each time).
    expect(await codec.seal(memo)).not.toBe(token)
  })

  it('refuses a changed byte, a state of another secret, and a sealed-only state', async () => {
    const token = await codec.seal(payload)
    const [v, id, body] = token.split('.')
    const bytes = Buffer.from(body!, 'base64url')
    bytes[20]! ^= 1
    await expect(codec.open(`${v}.${id}.${bytes.toString('base64url')}`)).rejects.toMatchObject({ code: -32602, message: 'Invalid requestState: its seal does not match' })
    await expect(encryptedStateCodec('o'.repeat(32)).open(token)).rejects.toMatchObject({ message: expect.stringContaining('another requestState secret') })
    await expect(codec.open(await stateCodec(secret).seal(payload))).rejects.toMatchObject({ message: 'Invalid requestState: malformed' })
    const expired = await codec.seal({ ...payload, x: Date.now() - 1 })
    await expect(codec.open(expired)).rejects.toMatchObject({ message: 'Invalid requestState: it has expired' })
  })

  it('serves multi-round requests with encrypt: true, and needs the secret as bytes or text', async () => {
    const server = new McpServer({ name: 'enc', version: '1' }).tool('confirm', {}, async (_a, ctx) => {
      const card = await ctx.memo('card', () => 'four-two-four-two')
      return `${(await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action} ${card.length}`
    })
    const handler = createFetchHandler(server, { requestState: { secret, encrypt: true } })
    const params = { name: 'confirm', arguments: {}, _meta: META_2026({ elicitation: {} }) }
    const first = await rpc(handler, 'tools/call', params)
    const state = first.body.result.requestState as string
    expect(state.startsWith('e1.')).toBe(true)
    const retry = { ...params, requestState: state, inputResponses: { ok: { action: 'accept' } } }
    expect((await rpc(handler, 'tools/call', retry)).body.result.content[0].text).toBe('accept 17')
    const key = await crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    expect(() => createFetchHandler(server, { requestState: { secret: key, encrypt: true } })).toThrow(/string or bytes/)
  })
})

describe('single-use requestState', () => {
  const confirm = () => new McpServer({ name: 'once', version: '1' })
    .tool('confirm', {}, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action)
  const params = { name: 'confirm', arguments: {}, _meta: META_2026({ elicitation: {} }) }
  const retryOf = (state: string) => ({ ...params, requestState: state, inputResponses: { ok: { action: 'accept' } } })

  it('serves a state once and refuses it after; a state refused for another reason is not used up', async () => {
    const handler = createFetchHandler(confirm(), { auth: bearerAuth(namedUsers()), requestState: { secret: 'k'.repeat(32), singleUse: true } })
    const call = (user: string, p: Record<string, unknown>) => rpc(handler, 'tools/call', p, { headers: { ...modernHeaders('tools/call', p), ...as(user) } })
    const state = (await call('alice', params)).body.result.requestState
    expect((await call('bob', retryOf(state))).body.error.message).toBe('Invalid requestState: it was issued to a different principal')
    expect((await call('alice', retryOf(state))).body.result.content[0].text).toBe('accept')
    expect((await call('alice', retryOf(state))).body.error).toEqual({
      code: -32602, message: 'Invalid requestState: it was used already: each requestState is taken once, so retry from the first round',
    })
  })

  it('lets a state be retried until it expires without singleUse', async () => {
    const handler = createFetchHandler(confirm(), { requestState: { secret: 'k'.repeat(32) } })
    const state = (await rpc(handler, 'tools/call', params)).body.result.requestState
    for (let i = 0; i < 2; i++) expect((await rpc(handler, 'tools/call', retryOf(state))).body.result.content[0].text).toBe('accept')
  })

  it('forgets used ids once their states would have expired', async () => {
    const used = memoryUsedStates()
    expect(await used.claim('a', Date.now() + 60_000)).toBe(true)
    expect(await used.claim('a', Date.now() + 60_000)).toBe(false)
    expect(await used.claim('b', Date.now() - 1)).toBe(true)
    expect(await used.claim('b', Date.now() + 60_000)).toBe(true)
  })
})

describe('a secret from a source', () => {
  it('is asked on first use, and asked again after it failed', async () => {
    let asks = 0
    const codec = stateCodec(async () => {
      if (asks++ === 0) throw new Error('store unreachable')
      return 'k'.repeat(32)
    })
    await expect(codec.seal(payload)).rejects.toThrow('store unreachable')
    const token = await codec.seal(payload)
    expect(await stateCodec('k'.repeat(32)).open(token)).toEqual(payload)
    await codec.open(token)
    expect(asks).toBe(2)
  })

  it('is held to 32 bytes like a secret given outright', async () => {
    await expect(stateCodec(async () => 'short').seal(payload)).rejects.toThrow(/32 bytes/)
  })
})
