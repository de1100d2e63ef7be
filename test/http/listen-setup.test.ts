/**
 * The setup of a listen stream over HTTP, against a backplane whose subscribe takes as long as the test
 * wants (as Redis's does): what happens in that window must neither come before the acknowledgement, nor be
 * lost, nor leave a subscription behind.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { turns } from '../helpers/async.js'
import { gatedBackplane } from '../helpers/backplane.js'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

function setup() {
  const backplane = gatedBackplane()
  const server = new McpServer({ name: 'listen-setup', version: '1.0.0' })
    .tool('t', { description: 't' }, () => 't')
    .resource('test://a', { name: 'a' }, () => 'a')
  return { backplane, handler: createFetchHandler(server, { backplane }) }
}

const listenRequest = (id: string, signal?: AbortSignal) => {
  const params = { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] }, _meta: META_2026() }
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST', headers: modernHeaders('subscriptions/listen', params), ...(signal && { signal }),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
  })
}

async function messages(response: Response) {
  const iterator = sseMessages(response.body!)
  return {
    next: async () => {
      const m = (await iterator.next()).value as Record<string, any>
      expect(validateServerMessage('2026-07-28', 'subscriptions/listen', m)).toEqual([])
      return m
    },
    cancel: () => iterator.return(undefined),
  }
}

/** The handler shut down while the listen's subscribe is still in flight: the listen's answer. */
async function shutDuringSetup(handler: ReturnType<typeof setup>['handler'], backplane: ReturnType<typeof setup>['backplane'], request: Request) {
  const response = handler(request)
  await backplane.subscribing()
  const closing = handler.close()
  backplane.release()
  await closing
  return response
}

describe('listen setup over HTTP', () => {
  it('shows nothing, not even the acknowledgement, before the subscription is live', async () => {
    const { handler, backplane } = setup()
    let first: unknown
    const response = handler(listenRequest('s-1')).then(async (res) => {
      const stream = await messages(res)
      first = await stream.next()
      return stream
    })
    await backplane.subscribing()
    await turns()
    expect(first).toBeUndefined()
    backplane.release()
    const stream = await response
    expect(first).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
    await stream.cancel()
  })

  it('holds back changes published during setup until after the acknowledgement, and loses none', async () => {
    const { handler, backplane } = setup()
    const response = handler(listenRequest('s-2'))
    await backplane.subscribing()
    await handler.notify.resourceUpdated('test://a')
    await handler.notify.toolsChanged()
    expect(backplane.delivered).toBe(2)
    backplane.release()
    const stream = await messages(await response)
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://a', _meta: { 'io.modelcontextprotocol/subscriptionId': 's-2' } } })
    expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 's-2' } } })
    // And what comes after setup flows as usual.
    await handler.notify.resourceUpdated('test://a')
    expect((await stream.next()).params).toMatchObject({ uri: 'test://a' })
    await stream.cancel()
    expect(backplane.open).toBe(0)
  })

  it('frees the subscription of a client that leaves while it is being set up', async () => {
    const { handler, backplane } = setup()
    const abort = new AbortController()
    const response = handler(listenRequest('s-3', abort.signal))
    await backplane.subscribing()
    expect(backplane.open).toBe(1)
    abort.abort()
    backplane.release()
    await response.then((res) => res.body?.cancel(), () => undefined)
    expect(backplane.open).toBe(0)
    // Nothing is delivered to the stream that is gone.
    await handler.notify.toolsChanged()
    expect(backplane.delivered).toBe(0)
  })

  it('ends a stream whose setup is still running on shutdown, and frees it', async () => {
    const { handler, backplane } = setup()
    const res = await shutDuringSetup(handler, backplane, listenRequest('s-4'))
    expect(backplane.open).toBe(0)
    // Ended before it was acknowledged: the answer is the SubscriptionsListenResult alone, as JSON.
    expect(res.headers.get('content-type')).toBe('application/json')
    const body = await res.json()
    expect(validateServerMessage('2026-07-28', 'subscriptions/listen', body)).toEqual([])
    expect(body).toMatchObject({ id: 's-4', result: { resultType: 'complete' } })
  })

  it('ends gracefully, with its result, at the deadline its runtime gives (Lambda)', async () => {
    const { handler, backplane } = setup()
    const response = handler(listenRequest('s-5'), { deadline: Date.now() + 100 })
    await backplane.subscribing()
    backplane.release()
    const stream = await messages(await response)
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    expect(await stream.next()).toMatchObject({ id: 's-5', result: { resultType: 'complete' } })
    expect(backplane.open).toBe(0)
  })

  it('reports a subscription whose close fails, and still ends the stream', async () => {
    const errors: [unknown, string | undefined][] = []
    const failing = { publish: async () => {}, subscribe: async () => ({ close: () => Promise.reject(new Error('close failed')) }) }
    const server = new McpServer({ name: 'listen-close', version: '1.0.0' }).tool('t', { description: 't' }, () => 't')
    const handler = createFetchHandler(server, { backplane: failing, onError: (e, context) => void errors.push([e, context.during]) })
    const stream = await messages(await handler(listenRequest('s-6')))
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    await handler.close()
    expect(await stream.next()).toMatchObject({ id: 's-6', result: { resultType: 'complete' } })
    expect(errors).toEqual([[new Error('close failed'), 'listen close']])
  })

  it('a DRAFT-2026-v1 listen ended before its acknowledgement answers 204: that version has no listen result', async () => {
    const { handler, backplane } = setup()
    const params = { notifications: { toolsListChanged: true }, _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': 'DRAFT-2026-v1' } }
    const res = await shutDuringSetup(handler, backplane, new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen', params, 'DRAFT-2026-v1'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 's-7', method: 'subscriptions/listen', params }),
    }))
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
  })
})
