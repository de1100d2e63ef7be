/**
 * Two Node server processes sharing Redis: a listen stream on one gets a change made through a tool call
 * on the other; across a Redis restart the stream stays open and receives the refetch cue.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { ownRedis } from '../helpers/redis.js'

async function client(url: string) {
  const c = new Client({ name: 'fanout-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await c.connect(new StreamableHTTPClientTransport(new URL(url)))
  return c
}

let redis: Awaited<ReturnType<typeof ownRedis>>
let a: EverythingProcess
let b: EverythingProcess
beforeAll(async () => {
  redis = await ownRedis()
  const env = { REDIS_URL: redis.url, MCP_REQUEST_STATE_SECRET: 's'.repeat(32) }
  ;[a, b] = await Promise.all([startEverythingProcess(env), startEverythingProcess(env)])
})
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await redis?.stop()
})

describe('fan-out across processes over Redis', () => {
  // How fast it arrives is measured by `npm run bench:fanout`; here, that it arrives.
  it('a change on one process reaches a listen stream on the other, and survives a Redis restart', async () => {
    const listener = await client(a.url)
    const actor = await client(b.url)
    const seen: number[] = []
    listener.setNotificationHandler('notifications/tools/list_changed', () => void seen.push(Date.now()))
    const subscription = await listener.listen({ toolsListChanged: true })
    let closed: string | undefined
    void subscription.closed.then((c) => (closed = c))

    await actor.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await until(() => seen.length === 1, 10_000)

    // Redis goes away and comes back: the stream stays open and gets a refetch cue.
    await redis.stop()
    await redis.start()
    await until(() => seen.length === 2, 10_000)

    await actor.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await until(() => seen.length === 3, 10_000)
    expect(closed).toBeUndefined()
    await subscription.close()
    expect(a.child.exitCode).toBeNull()
    expect(b.child.exitCode).toBeNull()
    expect((await actor.discover()).supportedVersions).toContain('2026-07-28')
    await listener.close()
    await actor.close()
  }, 30_000)
})
