/**
 * Two Node server processes sharing Redis: a listen stream on one gets a change made through a tool call
 * on the other; across a Redis restart the stream stays open and receives the refetch cue.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { ownRedis } from '../helpers/redis.js'

function startServer(redisUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/everything/node.ts'], {
    env: { ...process.env, PORT: '0', REDIS_URL: redisUrl, MCP_REQUEST_STATE_SECRET: 's'.repeat(32) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c) => {
      log += c
      const m = /listening on (\S+)/.exec(log)
      if (m) resolve({ child, url: m[1]! })
    })
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${log}`)))
  })
}

async function client(url: string) {
  const c = new Client({ name: 'fanout-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await c.connect(new StreamableHTTPClientTransport(new URL(url)))
  return c
}

let redis: Awaited<ReturnType<typeof ownRedis>>
let a: { child: ChildProcess; url: string }
let b: { child: ChildProcess; url: string }
beforeAll(async () => {
  redis = await ownRedis()
  ;[a, b] = await Promise.all([startServer(redis.url), startServer(redis.url)])
})
afterAll(async () => {
  for (const p of [a, b]) {
    if (p?.child.exitCode === null) {
      const exited = once(p.child, 'exit')
      p.child.kill('SIGTERM')
      await exited
    }
  }
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
