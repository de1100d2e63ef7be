/** Multi-round-trip requests: what a requestState is bound to, and what earlier rounds leave to later ones. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { META_2026, rpc, TEST_SECRET } from '../helpers/server.js'

const form = (message: string) => ({ message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } })
const accept = (v: string) => ({ action: 'accept', content: { v } })

function setup() {
  const effects = { memo: 0, runs: 0 }
  const server = new McpServer({ name: 'rounds', version: '1', requestState: { secret: TEST_SECRET } })
    .tool('pay', {
      description: 'asks before paying',
      input: { type: 'object', properties: { amount: { type: 'integer' } }, required: ['amount'] },
    }, async ({ amount }, ctx) => {
      const answer = await ctx.elicit('confirm', form(`Pay ${String(amount)}?`))
      return `paid ${String(amount)}: ${answer.action}`
    })
    .tool('two_steps', { description: 'asks twice, one round each' }, async (_a, ctx) => {
      effects.runs++
      const id = await ctx.memo('id', () => `order-${++effects.memo}`)
      const first = await ctx.elicit('first', form('first?'))
      const second = await ctx.elicit('second', form('second?'))
      return `${id} ${String(first.content?.v)} ${String(second.content?.v)}`
    })
  return { handler: createFetchHandler(server), effects }
}

const call = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ name, arguments: args, _meta: META_2026({ elicitation: {} }), ...extra })

describe('requestState', () => {
  it('is bound to the arguments: answers given for one call do not complete a call with other arguments', async () => {
    const { handler } = setup()
    const first = await rpc(handler, 'tools/call', call('pay', { amount: 1 }))
    expect(first.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } })
    const retry = { inputResponses: { confirm: { action: 'accept' } }, requestState: first.body.result.requestState }
    const replayed = await rpc(handler, 'tools/call', call('pay', { amount: 1000 }, retry))
    expect(replayed.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('different request') })
    const honest = await rpc(handler, 'tools/call', call('pay', { amount: 1 }, retry))
    expect(honest.body.result.content).toEqual([{ type: 'text', text: 'paid 1: accept' }])
  })

  it('keeps an answer given in an earlier round: a later round cannot replace it', async () => {
    const { handler } = setup()
    const round1 = await rpc(handler, 'tools/call', call('two_steps', {}))
    expect(Object.keys(round1.body.result.inputRequests)).toEqual(['first'])
    const round2 = await rpc(handler, 'tools/call', call('two_steps', {}, { inputResponses: { first: accept('A') }, requestState: round1.body.result.requestState }))
    expect(Object.keys(round2.body.result.inputRequests)).toEqual(['second'])
    const round3 = await rpc(handler, 'tools/call', call('two_steps', {}, {
      inputResponses: { first: accept('CHANGED'), second: accept('B') },
      requestState: round2.body.result.requestState,
    }))
    expect(round3.body.result.content).toEqual([{ type: 'text', text: 'order-1 A B' }])
  })

  it('carries memoised values across rounds: work before a question runs once per request', async () => {
    const { handler, effects } = setup()
    const round1 = await rpc(handler, 'tools/call', call('two_steps', {}))
    const round2 = await rpc(handler, 'tools/call', call('two_steps', {}, { inputResponses: { first: accept('A') }, requestState: round1.body.result.requestState }))
    await rpc(handler, 'tools/call', call('two_steps', {}, { inputResponses: { second: accept('B') }, requestState: round2.body.result.requestState }))
    expect(effects).toEqual({ memo: 1, runs: 3 })
  })

  it('needs the requestState for earlier answers: answers alone do not skip a round', async () => {
    const { handler } = setup()
    // Without the state of round 1, "first" is answered in this very request, "second" is still asked for.
    const res = await rpc(handler, 'tools/call', call('two_steps', {}, { inputResponses: { first: accept('A') } }))
    expect(res.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { second: { method: 'elicitation/create' } } })
    expect(Object.keys(res.body.result.inputRequests)).toEqual(['second'])
  })
})
