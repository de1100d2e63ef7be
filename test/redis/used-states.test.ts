/** Single-use requestStates across two handlers sharing one Redis: a state is served once, wherever it lands. */
import { afterAll, describe, expect, it } from 'vitest'
import { redisUsedStates } from '../../adapters/redis/index.js'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, rpc, TEST_SECRET } from '../helpers/server.js'

const used = redisUsedStates({ url: REDIS_URL, prefix: `test-${crypto.randomUUID()}:` })
const instance = () => createFetchHandler(
  new McpServer({ name: 'once', version: '1' })
    .tool('confirm', {}, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action),
  { requestState: { secret: TEST_SECRET, singleUse: used } },
)
const [one, two] = [instance(), instance()]
afterAll(() => used.close())

describe('single-use requestState in Redis', () => {
  it('serves a state on one instance and refuses it on the other; two at once, exactly one', async () => {
    const params = { name: 'confirm', arguments: {}, _meta: META_2026({ elicitation: {} }) }
    const retryOf = (state: string) => ({ ...params, requestState: state, inputResponses: { ok: { action: 'accept' } } })
    const first = (await rpc(one, 'tools/call', params)).body.result.requestState
    expect((await rpc(one, 'tools/call', retryOf(first))).body.result.content[0].text).toBe('accept')
    expect((await rpc(two, 'tools/call', retryOf(first))).body.error.message).toMatch(/used already/)
    const second = (await rpc(two, 'tools/call', params)).body.result.requestState
    const raced = await Promise.all([rpc(one, 'tools/call', retryOf(second)), rpc(two, 'tools/call', retryOf(second))])
    expect(raced.map((r) => (r.body.result ? 'served' : 'refused')).sort()).toEqual(['refused', 'served'])
  })
})
