/**
 * One client's listen streams counted over every instance sharing a Redis backplane (what Lambda needs: an
 * instance there holds one stream): two handlers on one Redis, one client address, a cap of two.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { redisBackplane, type RedisBackplane } from '../../adapters/redis/index.js'
import { createFetchHandler, McpServer, type Backplane, type FetchHandler } from '../../src/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, modernHeaders, openListen } from '../helpers/server.js'

const server = () => new McpServer({ name: 'count', version: '1' }).tool('t', {}, () => 't')
const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
const listen = (h: FetchHandler, clientAddress: string) => h(new Request('http://127.0.0.1/mcp', {
  method: 'POST', headers: modernHeaders('subscriptions/listen', params), body: JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params }),
}), { clientAddress })

const open: { cancel(): Promise<void> }[] = []
const backplanes: RedisBackplane[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.cancel()))
  await Promise.all(backplanes.splice(0).map((b) => b.close()))
})

/** Two instances on one Redis (a prefix of the test's own), each counting a client's streams with the other. */
function instances(url = REDIS_URL, onError?: (e: unknown) => void, listen: { maxLifetimeMs?: number } = {}) {
  const prefix = `count-${crypto.randomUUID()}:`
  return [1, 2].map(() => {
    const backplane = redisBackplane({ url, prefix, onError: () => {} })
    backplanes.push(backplane)
    return createFetchHandler(server(), { backplane, listen: { maxStreamsPerClient: 2, ...listen }, onError })
  }) as [FetchHandler, FetchHandler]
}

async function opened(h: FetchHandler, address: string) {
  const stream = await openListen((r) => h(r, { clientAddress: address }), { toolsListChanged: true }, 'l')
  expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
  open.push(stream)
  return stream
}

describe('listen streams per client, over instances sharing Redis', () => {
  it('refuses the third stream of a client with two open on other instances (429), and frees a place when one closes', async () => {
    const [a, b] = instances()
    const first = await opened(a, '10.0.0.1')
    await opened(b, '10.0.0.1')
    const refused = await listen(a, '10.0.0.1')
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '10' })
    expect((await refused.json()).error).toMatchObject({ code: -32000, message: 'This client has 2 listen streams open, its most: close one before opening another' })
    // Another client has places of its own.
    await opened(a, '10.0.0.2')
    await first.cancel()
    for (let tries = 0; ; tries++) {
      const res = await listen(b, '10.0.0.1')
      if (res.status === 200) {
        await res.body!.cancel()
        break
      }
      await res.body?.cancel()
      if (tries > 50) throw new Error('the closed stream never gave its place back')
      await new Promise((r) => setTimeout(r, 20))
    }
  })

  it('lets streams open on the instance\'s own count when Redis cannot be reached, and says so', async () => {
    const errors: unknown[] = []
    const [a] = instances('redis://127.0.0.1:1', (e) => void errors.push(e))
    // The subscription cannot go live either: it is acknowledged after its wait, and counted by the instance.
    await opened(a, '10.0.0.1')
    await opened(a, '10.0.0.1')
    expect((await listen(a, '10.0.0.1')).status).toBe(429)
    expect(errors.length).toBeGreaterThanOrEqual(1)
  }, 20_000)

  it('gives back the place of a stream that ended while it was being counted', async () => {
    const real = redisBackplane({ url: REDIS_URL, prefix: `count-${crypto.randomUUID()}:`, onError: () => {} })
    backplanes.push(real)
    // The real backplane, its count held back until the client has left.
    let counting!: () => void
    const asked = new Promise<void>((resolve) => (counting = resolve))
    let go!: () => void
    const gate = new Promise<void>((resolve) => (go = resolve))
    const backplane: Backplane = {
      kind: 'redis', publish: (e) => real.publish(e), subscribe: (t, l) => real.subscribe(t, l), releaseStream: (c, s) => real.releaseStream(c, s),
      admitStream: async (...args) => {
        counting()
        await gate
        return real.admitStream(...args)
      },
    }
    const h = createFetchHandler(server(), { backplane, listen: { maxStreamsPerClient: 1 } })
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST', headers: modernHeaders('subscriptions/listen', params), body: JSON.stringify({ jsonrpc: '2.0', id: 'gone', method: 'subscriptions/listen', params }),
    })
    // The handler shuts down while the stream is being counted: the stream ends before its count is settled.
    const answered = h(request, { clientAddress: '10.0.0.3' }).then((res) => res.body?.cancel(), () => {})
    await asked
    const closed = h.close()
    go()
    await Promise.all([answered, closed])
    await new Promise((r) => setTimeout(r, 100))
    expect(await real.admitStream('address 10.0.0.3', 'after', 1, Date.now() + 60_000)).toBe(true)
  })

  it('counts nothing in Redis for a stream without an end (maxLifetimeMs Infinity): it could never lapse there', async () => {
    const errors: unknown[] = []
    const [a] = instances(REDIS_URL, (e) => void errors.push(e), { maxLifetimeMs: Infinity })
    await opened(a, '10.0.0.4')
    expect(errors).toEqual([])
  })

  it('lets a place whose stream lapsed (its instance died) be taken again', async () => {
    const backplane = redisBackplane({ url: REDIS_URL, prefix: `count-${crypto.randomUUID()}:`, onError: () => {} })
    backplanes.push(backplane)
    expect(await backplane.admitStream('c', 'live', 2, Date.now() + 60_000)).toBe(true)
    expect(await backplane.admitStream('c', 'lapsed', 2, Date.now() - 1)).toBe(true)
    expect(await backplane.admitStream('c', 'next', 2, Date.now() + 60_000)).toBe(true)
    expect(await backplane.admitStream('c', 'third', 2, Date.now() + 60_000)).toBe(false)
    // The same stream asking again is not a second one.
    expect(await backplane.admitStream('c', 'next', 2, Date.now() + 60_000)).toBe(true)
  })
})
