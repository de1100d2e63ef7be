/**
 * Lists that differ by who asks: `visible` predicates see the principal and the client, per request; what
 * a caller cannot see does not exist for it, and caches are told such lists are private.
 */
import { describe, expect, it } from 'vitest'
import { bearerAuth, createFetchHandler, McpServer } from '../../src/index.js'
import { META_2026, modernHeaders, openListen, rpc } from '../helpers/server.js'
import { as as bearer, namedUsers } from '../helpers/auth.js'

const admin = ({ principal }: { principal?: string | undefined }) => principal === 'admin'

function setup() {
  const server = new McpServer({ name: 'visible', version: '1.0.0', cache: { tools: { ttlMs: 60_000, cacheScope: 'public' }, prompts: { ttlMs: 60_000, cacheScope: 'public' } } })
    .tool('list_users', { description: 'everyone' }, () => 'ada, grace')
    .tool('delete_user', { description: 'admins', visible: admin }, () => 'deleted')
    .tool('sample_it', { description: 'clients that can sample', visible: ({ client }) => client.capabilities.sampling !== undefined }, () => 's')
    .prompt('everyone', { description: 'e' }, () => 'e')
    .resource('test://public', { name: 'public' }, () => 'p')
    .resource('test://secret', { name: 'secret', visible: admin }, () => 'the secret')
    .resourceTemplate('test://admin/{id}', { name: 'admin', visible: admin, complete: { id: () => ['1'] } }, (uri) => uri)
  const handler = createFetchHandler(server, { auth: bearerAuth(namedUsers()) })
  const as = (user: string | undefined, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) => {
    const full = { ...params, _meta: META_2026(capabilities) }
    return rpc(handler, method, full, { headers: { ...modernHeaders(method, full), authorization: `Bearer ${user ?? 'guest'}` } })
  }
  return { server, handler, as }
}

describe('visibility', () => {
  it('lists what the asker may see, in registration order, and marks lists with hidden entries private', async () => {
    const { as } = setup()
    const names = async (user?: string, capabilities?: Record<string, unknown>) => {
      const { body } = await as(user, 'tools/list', {}, capabilities)
      return { names: body.result.tools.map((t: { name: string }) => t.name), scope: body.result.cacheScope }
    }
    expect(await names()).toEqual({ names: ['list_users'], scope: 'private' })
    expect(await names('admin')).toEqual({ names: ['list_users', 'delete_user'], scope: 'private' })
    expect(await names('bob', { sampling: {} })).toEqual({ names: ['list_users', 'sample_it'], scope: 'private' })
    // A list nobody is hidden anything from keeps its configured scope.
    expect((await as(undefined, 'prompts/list', {})).body.result.cacheScope).toBe('public')
  })

  it('a hidden tool, resource or template is unknown to whoever cannot see it, and works for whoever can', async () => {
    const { as } = setup()
    expect((await as('bob', 'tools/call', { name: 'delete_user' })).body.error).toEqual({ code: -32602, message: 'Unknown tool: delete_user' })
    expect((await as('admin', 'tools/call', { name: 'delete_user' })).body.result.content).toEqual([{ type: 'text', text: 'deleted' }])
    expect((await as('bob', 'resources/read', { uri: 'test://secret' })).body.error.code).toBe(-32602)
    expect((await as('admin', 'resources/read', { uri: 'test://secret' })).body.result.contents[0].text).toBe('the secret')
    expect((await as('bob', 'resources/read', { uri: 'test://admin/1' })).body.error.code).toBe(-32602)
    expect((await as('admin', 'resources/read', { uri: 'test://admin/1' })).body.result.contents[0].text).toBe('test://admin/1')
    const resources = async (user?: string) => (await as(user, 'resources/list', {})).body.result.resources.map((r: { uri: string }) => r.uri)
    expect(await resources('bob')).toEqual(['test://public'])
    expect(await resources('admin')).toEqual(['test://public', 'test://secret'])
    const templates = async (user?: string) => (await as(user, 'resources/templates/list', {})).body.result.resourceTemplates.length
    expect([await templates('bob'), await templates('admin')]).toEqual([0, 1])
    const complete = { ref: { type: 'ref/resource', uri: 'test://admin/{id}' }, argument: { name: 'id', value: '' } }
    expect((await as('bob', 'completion/complete', complete)).body.error.code).toBe(-32602)
    expect((await as('admin', 'completion/complete', complete)).body.result.completion.values).toEqual(['1'])
  })

  it('registry changes at run time are seen by the next request of this instance', async () => {
    const { server, as } = setup()
    server.disable('tool', 'list_users')
    expect((await as('admin', 'tools/list', {})).body.result.tools.map((t: { name: string }) => t.name)).toEqual(['delete_user'])
    server.enable('tool', 'list_users')
    server.tool('added', { description: 'a' }, () => 'a')
    expect((await as(undefined, 'tools/list', {})).body.result.tools.map((t: { name: string }) => t.name)).toEqual(['list_users', 'added'])
  })

  it('a listen stream follows only the resources its asker may see: updates of hidden ones never reach it', async () => {
    const { server, handler } = setup()
    // Without authorization there is no principal: what only admin may see is hidden from every asker.
    const unauthenticated = createFetchHandler(server)
    const asked = ['test://secret', 'test://admin/1', 'test://public']
    const follow = async (f: (r: Request) => Promise<Response>, headers: Record<string, string>) => {
      const stream = await openListen(f, { resourceSubscriptions: asked }, 1, {}, headers)
      const honoured = (await stream.next()).params.notifications.resourceSubscriptions
      return { honoured, next: async () => (await stream.next()).params.uri, cancel: stream.cancel }
    }
    const bob = await follow(handler, bearer('bob'))
    const admin = await follow(handler, bearer('admin'))
    const anonymous = await follow(unauthenticated, {})
    expect([bob.honoured, admin.honoured, anonymous.honoured]).toEqual([['test://public'], asked, ['test://public']])
    // test://public goes last: a stream whose next update names it was sent nothing for the hidden ones before it.
    for (const uri of asked) await Promise.all([handler.notify.resourceUpdated(uri), unauthenticated.notify.resourceUpdated(uri)])
    expect([await bob.next(), await anonymous.next()]).toEqual(['test://public', 'test://public'])
    expect([await admin.next(), await admin.next(), await admin.next()]).toEqual(asked)
    await Promise.all([bob, admin, anonymous].map((s) => s.cancel()))
  })
})
