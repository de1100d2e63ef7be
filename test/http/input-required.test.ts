/** Multi-round-trip requests: what a requestState is bound to, and what earlier rounds leave to later ones. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { META_2026, rpc } from '../helpers/server.js'

const form = (message: string) => ({ message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } })
const accept = (v: string) => ({ action: 'accept', content: { v } })

function setup() {
  const effects = { memo: 0, runs: 0 }
  const server = new McpServer({ name: 'rounds', version: '1' })
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

describe('input requests and the capabilities they need', () => {
  const server = new McpServer({ name: 'asks', version: '1' })
    .tool('ask', { description: 'asks whatever it is told to', input: { type: 'object', properties: { request: { type: 'object' } } } },
      async ({ request }, ctx) => JSON.stringify(await ctx.ask({ k: request as never })))
    .prompt('ask', { description: 'a prompt that asks too' }, async (_args, ctx) => (await ctx.elicit('k', form('?'))).action)
  const handler = createFetchHandler(server)
  const ask = (request: unknown, capabilities: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    rpc(handler, 'tools/call', { name: 'ask', arguments: { request }, _meta: META_2026(capabilities), ...extra })

  const elicitForm = { method: 'elicitation/create', params: form('?') }
  const elicitUrl = { method: 'elicitation/create', params: { mode: 'url', message: 'open', url: 'https://example.com/x', elicitationId: 'e1' } }
  const sample = (params: Record<string, unknown> = {}) => ({ method: 'sampling/createMessage', params: { messages: [], maxTokens: 1, ...params } })
  const roots = { method: 'roots/list', params: {} }

  it.each([
    ['a form elicitation', elicitForm, {}, { elicitation: { form: {} } }],
    ['a form elicitation from a url-only client', elicitForm, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ['a url elicitation from a client that declared elicitation: {} (form only)', elicitUrl, { elicitation: {} }, { elicitation: { url: {} } }],
    ['a url elicitation from a form-only client', elicitUrl, { elicitation: { form: {} } }, { elicitation: { url: {} } }],
    ['sampling', sample(), { roots: {} }, { sampling: {} }],
    ['sampling with tools', sample({ tools: [] }), { sampling: {} }, { sampling: { tools: {} } }],
    ['sampling with context', sample({ includeContext: 'thisServer' }), { sampling: {} }, { sampling: { context: {} } }],
    ['roots', roots, { sampling: {} }, { roots: {} }],
  ])('%s the client did not declare is never sent: -32021 with what is missing', async (_what, request, capabilities, missing) => {
    const { status, body } = await ask(request, capabilities)
    expect(status).toBe(400)
    expect(body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: missing } })
  })

  it.each([
    ['a form elicitation', elicitForm, { elicitation: {} }],
    ['a form elicitation', elicitForm, { elicitation: { form: {} } }],
    ['a url elicitation', elicitUrl, { elicitation: { url: {} } }],
    ['sampling', sample(), { sampling: {} }],
    ['sampling without context', sample({ includeContext: 'none' }), { sampling: {} }],
    ['sampling with tools', sample({ tools: [] }), { sampling: { tools: {} } }],
    ['sampling with context', sample({ includeContext: 'allServers' }), { sampling: { context: {} } }],
    ['roots', roots, { roots: {} }],
  ])('%s is asked for when the client declared %j', async (_what, request, capabilities) => {
    const { body } = await ask(request, capabilities)
    expect(body.result).toMatchObject({ resultType: 'input_required', inputRequests: { k: request } })
  })

  const validAnswers: [unknown, unknown][] = [
    [elicitForm, { action: 'accept', content: { v: 'x' } }],
    [elicitForm, { action: 'decline' }],
    [elicitForm, { action: 'cancel' }],
    [sample(), { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } }],
    [sample(), { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }] }],
    [roots, { roots: [] }],
    [roots, { roots: [{ uri: 'file:///a' }] }],
  ]
  it.each(validAnswers)('takes a valid answer to %j: %j', async (request, answer) => {
    const capabilities = { elicitation: {}, sampling: {}, roots: {} }
    const first = await ask(request, capabilities)
    const { body } = await ask(request, capabilities, { inputResponses: { k: answer }, requestState: first.body.result.requestState })
    expect(body.result.content).toEqual([{ type: 'text', text: JSON.stringify({ k: answer }) }])
  })

  it.each([
    [elicitForm, { action: 'maybe' }],
    [elicitForm, { action: 'accept', content: 'x' }],
    [elicitForm, 'accept'],
    [sample(), { role: 'assistant', content: { type: 'text', text: 'hi' } }],
    [sample(), { model: 'm', content: { type: 'text', text: 'hi' } }],
    [sample(), { role: 'assistant', model: 'm', content: 'hi' }],
    [roots, { roots: 'file:///a' }],
    [roots, { roots: [{ name: 'no uri' }] }],
    [roots, { roots: [5] }],
  ])('refuses an answer to %j of the wrong shape: %j', async (request, answer) => {
    const capabilities = { elicitation: {}, sampling: {}, roots: {} }
    const { body } = await ask(request, capabilities, { inputResponses: { k: answer } })
    expect(body.error).toMatchObject({ code: -32602, message: `inputResponses["k"] is not a valid ${(request as { method: string }).method} result` })
  })

  it('a requestState made for a tool does not complete a prompt of the same name and arguments', async () => {
    const first = await ask(elicitForm, { elicitation: {} })
    const state = first.body.result.requestState
    const { body } = await rpc(handler, 'prompts/get', { name: 'ask', arguments: { request: elicitForm }, _meta: META_2026({ elicitation: {} }), inputResponses: { k: { action: 'accept' } }, requestState: state })
    expect(body.error).toMatchObject({ code: -32602, message: expect.stringContaining('different request') })
  })
})
