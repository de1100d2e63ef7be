/** subscriptions/listen over HTTP: ack first, id tagging, the filter, lifetime, shutdown, disconnects. */
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer, memoryBackplane, type HandlerOptions } from '../../src/index.js'
import { META_2026, modernHeaders, openListen as open } from '../helpers/server.js'
import { recordingFetch, sseMessages } from '../helpers/wire.js'

let wire: ReturnType<typeof recordingFetch> | undefined
afterEach(async () => {
  await wire?.settled()
  expect(wire?.violations ?? []).toEqual([])
})

function setup(options: HandlerOptions = {}, serverOptions: { prompts?: boolean } = { prompts: true }) {
  const backplane = memoryBackplane()
  const server = new McpServer({ name: 'listen', version: '1.0.0' })
    .tool('t', { description: 't' }, () => 't')
    .resource('test://a', { name: 'a' }, () => 'a')
    .resourceTemplate('test://n/{id}', { name: 'n' }, (uri) => uri)
  if (serverOptions.prompts) server.prompt('p', { description: 'p' }, () => 'p')
  const handler = createFetchHandler(server, { backplane, ...options })
  wire = recordingFetch(handler)
  return { server, backplane, handler, fetch: wire.fetch }
}

const tag = (id: string | number) => ({ 'io.modelcontextprotocol/subscriptionId': id })

describe('subscriptions/listen', () => {
  it('acknowledges first, with the honoured filter, tagged with the request id of the same type', async () => {
    const { fetch } = setup({}, { prompts: false })
    const stream = await open(fetch, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://a'], somethingElse: true }, 41)
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] }, _meta: tag(41) },
    })
    await stream.cancel()
  })

  it('delivers only what the filter asked for', async () => {
    const { fetch, handler } = setup()
    const stream = await open(fetch, { promptsListChanged: true, resourceSubscriptions: ['test://a'] })
    await stream.next()
    await handler.notify.toolsChanged() // not asked for
    await handler.notify.resourceUpdated('test://b') // not asked for
    await handler.notify.promptsChanged()
    await handler.notify.resourceUpdated('test://a')
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: tag('listen-1') } })
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: tag('listen-1') } })
    await stream.cancel()
  })

  it('registry changes at run time publish nothing: they are instance-local, notify is what reaches every instance', async () => {
    const { fetch, handler, server } = setup()
    const stream = await open(fetch, { toolsListChanged: true, resourcesListChanged: true })
    await stream.next()
    for (let i = 0; i < 5; i++) server.tool(`bulk_${i}`, { description: 'b' }, () => '')
    server.resourceTemplate('test://t/{x}', { name: 't' }, () => '')
    server.remove('tool', 't')
    await handler.notify.resourcesChanged()
    await handler.notify.toolsChanged()
    expect((await stream.next()).method).toBe('notifications/resources/list_changed')
    expect((await stream.next()).method).toBe('notifications/tools/list_changed')
    await stream.cancel()
  })

  it('serves several concurrent subscriptions, each with its own id', async () => {
    const { fetch, handler } = setup()
    const a = await open(fetch, { toolsListChanged: true }, 'a')
    const b = await open(fetch, { toolsListChanged: true }, 'b')
    await a.next()
    await b.next()
    await handler.notify.toolsChanged()
    expect((await a.next()).params._meta).toEqual(tag('a'))
    expect((await b.next()).params._meta).toEqual(tag('b'))
    await a.cancel()
    await b.cancel()
  })

  it('ends gracefully at the lifetime limit with a SubscriptionsListenResult', async () => {
    const { fetch, backplane } = setup({ listen: { maxLifetimeMs: 50 } })
    const stream = await open(fetch, { toolsListChanged: true }, 9)
    await stream.next()
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', id: 9, result: { resultType: 'complete', _meta: { ...tag(9), 'io.modelcontextprotocol/serverInfo': { name: 'listen', version: '1.0.0' } } } })
    expect(await stream.next()).toBeUndefined()
    expect(backplane.size).toBe(0)
  })

  it('ends every open stream gracefully on close (shutdown)', async () => {
    const { fetch, handler, backplane } = setup()
    const streams = await Promise.all([1, 2, 3].map((id) => open(fetch, { toolsListChanged: true }, id)))
    for (const s of streams) await s.next()
    expect(backplane.size).toBe(3)
    await handler.close()
    for (const [i, s] of streams.entries()) {
      expect(await s.next()).toMatchObject({ id: i + 1, result: { resultType: 'complete' } })
      expect(await s.next()).toBeUndefined()
    }
    expect(backplane.size).toBe(0)
  })

  it('frees the subscription when the client goes away', async () => {
    const { fetch, backplane } = setup()
    const stream = await open(fetch, { toolsListChanged: true, resourceSubscriptions: ['test://a'] })
    await stream.next()
    expect(backplane.size).toBe(1)
    await stream.cancel()
    expect(backplane.size).toBe(0)
  })

  it('lets go of a client that stops reading rather than queueing for it without end, and frees its subscription', async () => {
    const { handler, backplane } = setup()
    const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'stuck', method: 'subscriptions/listen', params }),
    }))
    expect(backplane.size).toBe(1)
    // About 130 bytes each: 8,000 of them is 1 MB queued for a client that reads nothing.
    let published = 0
    while (backplane.size > 0 && published < 20_000) {
      await handler.notify.toolsChanged()
      published++
    }
    expect(backplane.size).toBe(0)
    expect(published).toBeGreaterThan(7_000)
    await expect(res.text()).rejects.toThrow(/too slow/)
  })

  it('sends keep-alive comments on idle streams', async () => {
    const { handler } = setup({ keepAliveMs: 30 })
    const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params }),
    }))
    const reader = res.body!.getReader()
    let text = ''
    while ((text.match(/^: keep-alive$/gm)?.length ?? 0) < 2) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    // Comments only, between whole events: the acknowledgement came first, and nothing else since.
    expect(text.split('\n\n').filter((e) => e !== '' && !e.startsWith(': keep-alive'))).toHaveLength(1)
  })

  it.each([
    [undefined, 'params.notifications must be an object (the subscription filter)'],
    ['all', 'params.notifications must be an object (the subscription filter)'],
    [{ toolsListChanged: 'yes' }, 'notifications.toolsListChanged must be a boolean'],
    [{ promptsListChanged: 1 }, 'notifications.promptsListChanged must be a boolean'],
    [{ resourcesListChanged: null }, 'notifications.resourcesListChanged must be a boolean'],
    [{ resourceSubscriptions: 'test://a' }, 'notifications.resourceSubscriptions must be an array of URIs'],
    [{ resourceSubscriptions: [1] }, 'notifications.resourceSubscriptions must be an array of URIs'],
    [{ resourceSubscriptions: Array.from({ length: 1001 }, (_, i) => `test://${i}`) }, 'notifications.resourceSubscriptions may name at most 1000 URIs'],
  ])('refuses the filter %j with -32602', async (notifications, message) => {
    const { fetch, backplane } = setup()
    const params = { notifications, _meta: META_2026() }
    const res = await fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params }),
    }))
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message } })
    expect(backplane.size).toBe(0)
  })

  it('honours up to 1000 URIs, each once', async () => {
    const { fetch, handler } = setup()
    const uris = Array.from({ length: 1000 }, (_, i) => `test://n/${i % 500}`)
    const stream = await open(fetch, { resourceSubscriptions: uris, toolsListChanged: false })
    expect((await stream.next()).params.notifications).toEqual({ resourceSubscriptions: uris.slice(0, 500) })
    await handler.notify.resourceUpdated('test://n/499')
    expect((await stream.next()).params.uri).toBe('test://n/499')
    await stream.cancel()
  })

  it('honours only what the server has: no resource list changes or subscriptions without resources', async () => {
    const server = new McpServer({ name: 'tools-only', version: '1.0.0' }).tool('t', { description: 't' }, () => 't')
    wire = recordingFetch(createFetchHandler(server))
    const stream = await open(wire.fetch, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['test://a'] })
    expect((await stream.next()).params.notifications).toEqual({ toolsListChanged: true })
    await stream.cancel()
  })

  it('ends a DRAFT-2026-v1 stream by closing it: the seed draft has no listen result', async () => {
    const { handler, backplane } = setup({ listen: { maxLifetimeMs: 20 } })
    const meta = { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1' }
    const params = { notifications: { toolsListChanged: true }, _meta: meta }
    const res = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen', params, 'DRAFT-2026-v1'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'seed', method: 'subscriptions/listen', params }),
    }))
    const all = []
    for await (const m of sseMessages(res.body!)) all.push(m)
    expect(all).toEqual([{ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: tag('seed') } }])
    expect(backplane.size).toBe(0)
  })

  it('resyncs every stream after a backplane interruption: a cue for each list and resource it watches', async () => {
    const { fetch, backplane } = setup()
    const stream = await open(fetch, { toolsListChanged: true, resourceSubscriptions: ['test://a', 'test://n/b'] })
    await stream.next()
    backplane.resync()
    const got = [await stream.next(), await stream.next(), await stream.next()].map((m) => m.params.uri ?? m.method)
    expect(got).toEqual(['notifications/tools/list_changed', 'test://a', 'test://n/b'])
    await stream.cancel()
  })
})
