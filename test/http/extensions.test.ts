/**
 * The extension seam: an extension brings its capability, methods (with their header rules and the client
 * capabilities they need), `_meta` keys and listen filter fields, and the core serves them as its own.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, memoryBackplane, type Extension } from '../../src/index.js'
import { invalidParams } from '../../src/core.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

const NOTES: Record<string, string> = { a: 'first note', b: 'second note' }
const ID = 'com.example/notes'

const notes: Extension = {
  id: ID,
  capability: { version: 1 },
  meta: { 'com.example/trace': (value) => (typeof value === 'string' ? undefined : 'must be a string') },
  methods: [
    {
      method: 'notes/get',
      eras: ['modern'],
      nameParam: 'name',
      target(call) {
        const name = call.params.name
        if (typeof name !== 'string' || !(name in NOTES)) throw invalidParams(`Unknown note: ${String(name)}`)
        return NOTES[name]
      },
      clientNeeds: (call) => (call.client.capabilities.extensions?.[ID] ? undefined : { extensions: { [ID]: {} } }),
      run: async (call, text) => ({ text, trace: (call.params._meta as Record<string, unknown>)['com.example/trace'] ?? null }),
    },
    // Takes the place of the core method of that name.
    { method: 'tools/list', eras: ['modern'], run: async () => ({ tools: [{ name: 'from_extension', inputSchema: { type: 'object' } }], ttlMs: 0, cacheScope: 'private' }) },
  ],
  listen: [{
    key: 'noteIds',
    honour(value) {
      if (value === undefined) return undefined
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalidParams('notifications.noteIds must be an array of strings')
      return { value, topics: value.map((id) => `note:${id}`) }
    },
    notifications: (event, honoured) => (event
      ? [{ method: 'notifications/message', params: { level: 'info', data: event.data } }]
      : (honoured as string[]).map((id) => ({ method: 'notifications/message', params: { level: 'info', data: { resync: id } } }))),
  }],
}

function setup() {
  const backplane = memoryBackplane()
  const server = new McpServer({ name: 'ext', version: '1.0.0' }).tool('core_tool', { description: 'c' }, () => 'c')
  const handler = createFetchHandler(server, { extensions: [notes], backplane })
  return { handler, backplane }
}

const withNotes = (extra: Record<string, unknown> = {}) => META_2026({ extensions: { [ID]: {} } }, extra)

describe('extensions', () => {
  it('advertises its capability in server/discover beside the core ones', async () => {
    const { body } = await rpc(setup().handler, 'server/discover', { _meta: META_2026() })
    expect(body.result.capabilities.extensions).toEqual({ [ID]: { version: 1 } })
    expect(body.result.capabilities.tools).toEqual({ listChanged: true })
  })

  it('serves its methods through the same validation: Mcp-Name, its target, the client capability it needs', async () => {
    const { handler } = setup()
    const ok = await rpc(handler, 'notes/get', { name: 'a', _meta: withNotes({ 'com.example/trace': 't-1' }) }, { headers: { ...modernHeaders('notes/get'), 'mcp-name': 'a' } })
    expect(ok.body.result).toMatchObject({ text: 'first note', trace: 't-1', resultType: 'complete' })

    const wrongName = await rpc(handler, 'notes/get', { name: 'a', _meta: withNotes() }, { headers: { ...modernHeaders('notes/get'), 'mcp-name': 'b' } })
    expect([wrongName.status, wrongName.body.error.code]).toEqual([400, -32020])
    const noName = await rpc(handler, 'notes/get', { name: 'a', _meta: withNotes() }, { headers: modernHeaders('notes/get') })
    expect([noName.status, noName.body.error.code]).toEqual([400, -32020])

    const unknown = await rpc(handler, 'notes/get', { name: 'z', _meta: withNotes() }, { headers: { ...modernHeaders('notes/get'), 'mcp-name': 'z' } })
    expect([unknown.status, unknown.body.error]).toEqual([200, { code: -32602, message: 'Unknown note: z' }])

    const undeclared = await rpc(handler, 'notes/get', { name: 'a', _meta: META_2026() }, { headers: { ...modernHeaders('notes/get'), 'mcp-name': 'a' } })
    expect([undeclared.status, undeclared.body.error.code, undeclared.body.error.data]).toEqual([400, -32021, { requiredCapabilities: { extensions: { [ID]: {} } } }])
  })

  it('checks the _meta keys it reads: a bad one makes the request malformed', async () => {
    const { status, body } = await rpc(setup().handler, 'tools/list', { _meta: withNotes({ 'com.example/trace': 7 }) })
    expect([status, body.error.code, body.error.message]).toEqual([400, -32602, 'Invalid request envelope: _meta["com.example/trace"] must be a string'])
  })

  it('exists only in the eras it names, and replaces a core method it names', async () => {
    const { handler } = setup()
    const legacy = await rpc(handler, 'notes/get', { name: 'a' }, { headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' } })
    expect([legacy.status, legacy.body.error.code]).toEqual([200, -32601])
    expect((await rpc(handler, 'tools/list', { _meta: META_2026() })).body.result.tools.map((t: { name: string }) => t.name)).toEqual(['from_extension'])
  })

  it('adds listen filter fields: echoed in the acknowledgement, fed by its own topics, payload and all', async () => {
    const { handler, backplane } = setup()
    const params = { notifications: { noteIds: ['a'], toolsListChanged: true }, _meta: withNotes() }
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'n', method: 'subscriptions/listen', params }),
    }))
    const messages = sseMessages(res.body!)
    const next = async () => {
      const m = (await messages.next()).value as Record<string, any>
      expect(validateServerMessage('2026-07-28', 'subscriptions/listen', m)).toEqual([])
      return m
    }
    expect((await next()).params.notifications).toEqual({ toolsListChanged: true, noteIds: ['a'] })
    await backplane.publish({ topic: 'note:b', data: { text: 'not watched' } })
    await backplane.publish({ topic: 'note:a', data: { text: 'changed' } })
    expect((await next()).params).toEqual({ level: 'info', data: { text: 'changed' }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'n' } })
    backplane.resync()
    expect([(await next()).method, (await next()).params.data]).toEqual(['notifications/tools/list_changed', { resync: 'a' }])
    await messages.return(undefined)
  })
})
