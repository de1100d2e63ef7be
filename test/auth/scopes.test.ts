/**
 * Scopes per tool, prompt, resource and template: checked before the handler runs (403 naming every scope
 * needed), listed or hidden as configured, and absent altogether where requests are not authenticated.
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, type HandlerOptions, McpServer, tasks, type TokenVerifier } from '../../src/index.js'
import { as as bearer, namedUsers, rpcAs } from '../helpers/auth.js'
import { openListen, rpc, META_2026 } from '../helpers/server.js'
import { TASK_CAPABILITIES } from '../helpers/tasks.js'

/** "alice~admin~billing" is alice, granted admin and billing. */
const verify: TokenVerifier = async (token) => {
  const [subject, ...scopes] = token.split('~')
  return { subject, scopes, claims: {} }
}

function scopedServer(ran: string[] = []) {
  const done = (what: string) => () => (ran.push(what), what)
  return new McpServer({ name: 'scoped', version: '1', cache: { tools: { ttlMs: 1000, cacheScope: 'public' } } })
    .tool('read_notes', {}, done('read_notes'))
    .tool('delete_all', { scopes: ['admin'] }, done('delete_all'))
    .tool('refund', { scopes: ['admin', 'billing'] }, done('refund'))
    .tool('audit', { scopes: ['admin'], task: 'optional' }, (_a, ctx) => `audit by ${ctx.auth?.subject} with ${ctx.auth?.scopes.join(',')}`)
    .prompt('incident', { scopes: ['admin'] }, done('incident'))
    .resource('notes://all', { name: 'all', scopes: ['admin'] }, done('notes://all'))
    .resourceTemplate('notes://{id}', { name: 'note', scopes: ['reader'] }, (uri) => (ran.push(uri), uri))
}

const setup = (auth: Partial<HandlerOptions['auth']> = {}, ran: string[] = []) => {
  const handler = createFetchHandler(scopedServer(ran), { extensions: [tasks()], auth: bearerAuth(namedUsers({ verify, ...auth })) })
  return (user: string, method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>) => rpcAs(handler, user, method, params, capabilities)
}

describe('scopes of entries', () => {
  it.each([
    ['tools/call', { name: 'delete_all', arguments: {} }, 'delete_all', 'admin'],
    ['tools/call', { name: 'refund', arguments: {} }, 'refund', 'admin billing'],
    ['prompts/get', { name: 'incident' }, 'incident', 'admin'],
    ['resources/read', { uri: 'notes://all' }, 'notes://all', 'admin'],
    ['resources/read', { uri: 'notes://42' }, 'notes://42', 'reader'],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'incident' }, argument: { name: 'x', value: '' } }, 'incident', 'admin'],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'notes://{id}' }, argument: { name: 'id', value: '' } }, 'notes://{id}', 'reader'],
  ])('%s %j without its scopes: 403 naming them all, the handler never run', async (method, params, what, scopes) => {
    const ran: string[] = []
    const as = setup({}, ran)
    const { status, headers, body } = await as('bob~billing', method, params)
    expect(status).toBe(403)
    const description = `${method} of ${what} needs scopes this request was not granted: ${scopes}`
    expect(headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", error_description="${description}", scope="${scopes}", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"`)
    expect(body).toEqual({ error: 'insufficient_scope', error_description: description })
    expect(ran).toEqual([])
  })

  it('runs each with its scopes granted, and adds the baseline to what a 403 names', async () => {
    const ran: string[] = []
    const as = setup({}, ran)
    const root = 'root~admin~billing~reader'
    expect((await as(root, 'tools/call', { name: 'refund', arguments: {} })).body.result.content[0].text).toBe('refund')
    expect((await as(root, 'prompts/get', { name: 'incident' })).status).toBe(200)
    expect((await as(root, 'resources/read', { uri: 'notes://all' })).body.result.contents[0].text).toBe('notes://all')
    expect((await as(root, 'resources/read', { uri: 'notes://7' })).body.result.contents[0].text).toBe('notes://7')
    expect((await as(root, 'completion/complete', { ref: { type: 'ref/prompt', name: 'incident' }, argument: { name: 'x', value: '' } })).body.result.completion.values).toEqual([])
    expect(ran).toEqual(['refund', 'incident', 'notes://all', 'notes://7'])
    const withBaseline = setup({ scopes: ['base'] })
    expect((await withBaseline('bob~base', 'tools/call', { name: 'refund', arguments: {} })).headers.get('www-authenticate')).toContain('scope="base admin billing"')
  })

  it('lists entries the caller lacks scopes for (so it can step up), privately; or hides them with hideOutOfScope, and still answers 403', async () => {
    const listed = setup()
    const shown = await listed('bob', 'tools/list', {})
    expect(shown.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['read_notes', 'delete_all', 'refund', 'audit'])
    expect(shown.body.result.cacheScope).toBe('private')
    const hidden = setup({ hideOutOfScope: true })
    const names = async (user: string) => (await hidden(user, 'tools/list', {})).body.result.tools.map((t: { name: string }) => t.name)
    expect(await names('bob')).toEqual(['read_notes'])
    expect(await names('ann~admin')).toEqual(['read_notes', 'delete_all', 'audit'])
    expect((await hidden('bob', 'resources/templates/list', {})).body.result.resourceTemplates).toEqual([])
    expect((await hidden('bob', 'tools/call', { name: 'delete_all', arguments: {} })).status).toBe(403)
  })

  it('has no scoped entry where requests are not authenticated: not listed, unknown to calls', async () => {
    const handler = createFetchHandler(scopedServer(), { extensions: [tasks()] })
    const call = (method: string, params: Record<string, unknown>) => rpc(handler, method, { ...params, _meta: META_2026() })
    expect((await call('tools/list', {})).body.result.tools.map((t: { name: string }) => t.name)).toEqual(['read_notes'])
    expect((await call('tools/call', { name: 'delete_all', arguments: {} })).body.error).toEqual({ code: -32602, message: 'Unknown tool: delete_all' })
    expect((await call('resources/read', { uri: 'notes://1' })).body.error).toMatchObject({ code: -32602, message: 'Resource not found: notes://1' })
    expect((await call('prompts/list', {})).body.result.prompts).toEqual([])
  })

  it('checks scopes before a task is made, and the task handler sees the identity that made it', async () => {
    const as = setup()
    expect((await as('bob', 'tools/call', { name: 'audit', arguments: {} }, TASK_CAPABILITIES)).status).toBe(403)
    const created = await as('ann~admin', 'tools/call', { name: 'audit', arguments: {} }, TASK_CAPABILITIES)
    const { taskId } = created.body.result
    let task
    for (let i = 0; i < 100 && task?.status !== 'completed'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 10))
      task = (await as('ann~admin', 'tasks/get', { taskId }, TASK_CAPABILITIES)).body.result
    }
    expect(task.result.content[0].text).toBe('audit by ann with admin')
  })

  it('has a listen stream follow only resources whose scopes were granted; where requests are not authenticated, none with scopes', async () => {
    const authenticated = createFetchHandler(scopedServer(), { extensions: [tasks()], auth: bearerAuth(namedUsers({ verify })) })
    const unauthenticated = createFetchHandler(scopedServer(), { extensions: [tasks()] })
    const asked = ['notes://all', 'notes://7']
    // toolsListChanged as the last event: a stream whose next message is it was sent nothing for what it may not read.
    const follow = async (f: (r: Request) => Promise<Response>, headers: Record<string, string>) => {
      const stream = await openListen(f, { resourceSubscriptions: asked, toolsListChanged: true }, 1, {}, headers)
      const honoured = (await stream.next()).params.notifications.resourceSubscriptions
      return { honoured, next: async () => { const m = await stream.next(); return m.params.uri ?? m.method }, cancel: stream.cancel }
    }
    const bob = await follow(authenticated, bearer('bob~billing'))
    const reader = await follow(authenticated, bearer('rita~reader'))
    const root = await follow(authenticated, bearer('root~admin~reader'))
    const anonymous = await follow(unauthenticated, {})
    expect([bob.honoured, reader.honoured, root.honoured, anonymous.honoured]).toEqual([[], ['notes://7'], asked, []])
    for (const f of [authenticated, unauthenticated]) {
      for (const uri of asked) await f.notify.resourceUpdated(uri)
      await f.notify.toolsChanged()
    }
    const last = 'notifications/tools/list_changed'
    expect([await bob.next(), await anonymous.next()]).toEqual([last, last])
    expect([await reader.next(), await reader.next()]).toEqual(['notes://7', last])
    expect([await root.next(), await root.next(), await root.next()]).toEqual([...asked, last])
    await Promise.all([bob, reader, root, anonymous].map((s) => s.cancel()))
  })

  it('takes no scopes ([]) as none: the entry is there without authorization', async () => {
    const server = new McpServer({ name: 's', version: '1' }).tool('open', { scopes: [] }, () => 'open')
    const { body } = await rpc(createFetchHandler(server), 'tools/call', { name: 'open', arguments: {}, _meta: META_2026() })
    expect(body.result.content[0].text).toBe('open')
  })

  it('refuses scopes that are not OAuth scope tokens at registration', () => {
    // A number would pass the token pattern once made a string: it is refused for not being one.
    for (const scopes of [['has space'], ['fine', 'quote"'], [''], 'admin', [123]]) {
      expect(() => new McpServer({ name: 's', version: '1' }).tool('t', { scopes: scopes as string[] }, () => '')).toThrow(/scopes must be an array of OAuth scope tokens/)
    }
    // The message names the entry, whatever its kind.
    const server = () => new McpServer({ name: 's', version: '1' })
    expect(() => server().resource('x://a', { name: 'a', scopes: [''] }, () => '')).toThrow(/^resource "x:\/\/a": scopes must/)
    expect(() => server().resourceTemplate('x://{a}', { name: 't', scopes: [''] }, () => '')).toThrow(/^resource template "x:\/\/\{a\}": scopes must/)
  })
})
