/**
 * requestState keys with nothing to configure: instances sharing a Redis share the secret kept there, so a
 * round answered on another instance works; instances of another prefix (another key) are told so.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { redisSharedSecret } from '../../adapters/redis/index.js'
import { createFetchHandler, McpServer, type SecretSource } from '../../src/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, rpc } from '../helpers/server.js'

const prefix = `test-${crypto.randomUUID()}:`
const sources = [redisSharedSecret({ url: REDIS_URL, prefix }), redisSharedSecret({ url: REDIS_URL, prefix }), redisSharedSecret({ url: REDIS_URL, prefix: `${prefix}other:` })]
afterAll(() => Promise.all(sources.map((s) => s.close())))

const instance = (secret: SecretSource) => createFetchHandler(
  new McpServer({ name: 'shared', version: '1' })
    .tool('confirm', {}, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action),
  { requestState: { secret } },
)

describe('a requestState secret kept in Redis', () => {
  it('is one secret for every source of one prefix, even made at once', async () => {
    const [a, b] = await Promise.all([sources[0]!(), sources[1]!()])
    expect(a).toBe(b)
    expect(String(a)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('lets a round started on one instance finish on another; an instance of another prefix says the key differs', async () => {
    const [one, two, stranger] = sources.map(instance)
    const params = { name: 'confirm', arguments: {}, _meta: META_2026({ elicitation: {} }) }
    const state = (await rpc(one!, 'tools/call', params)).body.result.requestState
    const retry = { ...params, requestState: state, inputResponses: { ok: { action: 'accept' } } }
    expect((await rpc(two!, 'tools/call', retry)).body.result.content[0].text).toBe('accept')
    expect((await rpc(stranger!, 'tools/call', retry)).body.error.message).toBe(
      'Invalid requestState: it was sealed with another requestState secret: every instance serving this server must share one')
  })
})
