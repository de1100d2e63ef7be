/**
 * Everything that outlives a request belongs to the principal that made it (issuer and subject, not the
 * subject alone): requestState, tasks and listen subscriptions. A resource subscription is honoured only
 * for URIs the caller may read; what it may not is left out of the acknowledgement.
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, type HandlerOptions, McpServer, tasks, type TokenVerifier } from '../../src/index.js'
import { as, namedUsers, rpcAs } from '../helpers/auth.js'
import { openListen, TEST_SECRET } from '../helpers/server.js'
import { TASK_CAPABILITIES, taskClient } from '../helpers/tasks.js'

/** "a.alice" is alice as issuer https://a vouches for her; "b.alice" is another alice, of issuer https://b. */
const verify: TokenVerifier = async (token) => {
  const [issuer, subject] = token.split('.')
  return { issuer: `https://${issuer}`, subject, claims: {} }
}
const options = (more: HandlerOptions = {}): HandlerOptions => ({
  auth: bearerAuth(namedUsers({ verify, authorizationServers: ['https://a', 'https://b'] })), requestState: { secret: TEST_SECRET }, extensions: [tasks()], ...more,
})

describe('bound to issuer and subject', () => {
  it('requestState issued to alice of one issuer does not work for alice of another', async () => {
    const server = new McpServer({ name: 'b', version: '1' })
      .tool('confirm', {}, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action)
    const handler = createFetchHandler(server, options())
    const first = await rpcAs(handler, 'a.alice', 'tools/call', { name: 'confirm', arguments: {} }, { elicitation: {} })
    const retry = { name: 'confirm', arguments: {}, requestState: first.body.result.requestState, inputResponses: { ok: { action: 'accept' } } }
    const stolen = await rpcAs(handler, 'b.alice', 'tools/call', retry, { elicitation: {} })
    expect(stolen.body.error).toEqual({ code: -32602, message: 'Invalid requestState: it was issued to a different principal' })
    expect((await rpcAs(handler, 'a.alice', 'tools/call', retry, { elicitation: {} })).body.result.content[0].text).toBe('accept')
  })

  it("a task of alice of one issuer does not exist for alice of another", async () => {
    const server = new McpServer({ name: 'b', version: '1' }).tool('job', { task: 'required' }, () => 'done')
    const handler = createFetchHandler(server, options())
    const taskId = await taskClient(handler, as('a.alice')).start('job')
    const other = await rpcAs(handler, 'b.alice', 'tasks/get', { taskId }, TASK_CAPABILITIES)
    expect(other.body.error).toEqual({ code: -32602, message: `Unknown task: ${taskId}` })
    await taskClient(handler, as('a.alice')).waitFor(taskId, ['completed'])
  })
})

describe('listen subscriptions to resources', () => {
  /** Each user's inbox is theirs: the template is visible only for the asker's own name. */
  const inboxes = () => new McpServer({ name: 'mail', version: '1' })
    .resource('mail://motd', { name: 'motd' }, () => 'hello')
    .resource('mail://audit', { name: 'audit', scopes: ['admin'] }, () => 'log')
    .resourceTemplate('mail://{user}/inbox', { name: 'inbox' }, (uri) => uri)

  const honoured = async (handler: (r: Request) => Promise<Response>, user: string, uris: string[]) => {
    const stream = await openListen(handler, { resourceSubscriptions: uris }, 1, {}, as(user))
    const ack = await stream.next()
    await stream.cancel()
    return ack.params.notifications.resourceSubscriptions
  }

  it('honours resources and template matches the caller may read; leaves out unknown URIs and resources out of its scopes', async () => {
    const handler = createFetchHandler(inboxes(), options())
    const asked = ['mail://motd', 'mail://audit', 'mail://a/inbox', 'mail://nothing', 'other://x']
    expect(await honoured(handler, 'a.alice', asked)).toEqual(['mail://motd', 'mail://a/inbox'])
  })

  it("lets the user's own hook decide, with who asks: nobody watches another's inbox", async () => {
    const readable = (uri: string, asker: { auth?: { subject?: string | undefined } | undefined }) =>
      uri === 'mail://motd' || uri === `mail://${asker.auth?.subject}/inbox`
    const handler = createFetchHandler(inboxes(), options({ listen: { readable } }))
    expect(await honoured(handler, 'a.alice', ['mail://alice/inbox', 'mail://bob/inbox', 'mail://motd'])).toEqual(['mail://alice/inbox', 'mail://motd'])
    expect(await honoured(handler, 'a.bob', ['mail://alice/inbox'])).toEqual([])
  })
})
