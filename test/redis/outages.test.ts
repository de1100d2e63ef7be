/**
 * What the Redis users say when Redis is not there: a Redis never reached is "could not connect", one that
 * answered and went away is "lost"; once per outage, and never with the password of the URL.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Redis, type RedisOptions } from 'ioredis'
import { describe, expect, it, vi } from 'vitest'
import { redisBackplane, redisTaskStore } from '../../adapters/redis/index.js'
import { logOutage, redisAddress, unreachable } from '../../adapters/redis/outage.js'
import { listChanged } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { freePort } from '../helpers/port.js'
import { ownRedis } from '../helpers/redis.js'

const text = (e: unknown) => (e instanceof Error ? e.message : String(e))

describe('Redis outages', () => {
  it('a Redis nothing listens for is "could not connect", reported once, without the password', async () => {
    const port = await freePort()
    const url = `redis://mcp:s3cret-pw@127.0.0.1:${port}/2`
    const errors: string[] = []
    const backplane = redisBackplane({ url, onError: (e) => void errors.push(`backplane ${text(e)}`) })
    const store = redisTaskStore({ url, onError: (e) => void errors.push(`store ${text(e)}`) })
    try {
      await until(() => errors.length >= 2, 5000, 'both to report')
      // ioredis retries every few ms at first: several attempts have failed by now, each unreported.
      await new Promise((r) => setTimeout(r, 500))
      expect(errors.sort()).toEqual([
        `backplane could not connect to redis://mcp:***@127.0.0.1:${port}/2 (connect ECONNREFUSED 127.0.0.1:${port}); retrying`,
        `store could not connect to redis://mcp:***@127.0.0.1:${port}/2 (connect ECONNREFUSED 127.0.0.1:${port}); retrying`,
      ])
    } finally {
      await backplane.close()
      await store.close()
    }
  })

  it('a Redis that answered and then went away is "lost", and "lost" again after it came back', async () => {
    const redis = await ownRedis()
    const errors: string[] = []
    const backplane = redisBackplane({ url: redis.url, onError: (e) => void errors.push(`backplane ${text(e)}`) })
    const store = redisTaskStore({ url: redis.url, onError: (e) => void errors.push(`store ${text(e)}`) })
    try {
      await backplane.publish(listChanged('tools'))
      expect(await store.get('nothing')).toBeUndefined()
      await redis.stop()
      await until(() => errors.length >= 2, 5000, 'both to report')
      const lost = [
        `backplane lost its connection to ${redis.url}`,
        `store lost its connection to ${redis.url}`,
      ]
      expect(errors.sort().map((e) => e.split(' (')[0])).toEqual(lost)
      await redis.start()
      // Back, then gone again: a second outage, reported as a loss too.
      await waitFor(() => backplane.publish(listChanged('tools')))
      await waitFor(() => store.get('nothing'))
      errors.length = 0
      await redis.stop()
      await until(() => errors.length >= 2, 5000, 'the second outage to be reported')
      expect(errors.sort().map((e) => e.split(' (')[0])).toEqual(lost)
    } finally {
      await backplane.close()
      await store.close()
      await redis.stop()
    }
  }, 20_000)

  it('names a connection by what ioredis parsed: a user, a password alone, TLS, a database, a socket', () => {
    const address = (...args: [string] | [RedisOptions]) => {
      const redis = new Redis(...(args as [string]), { lazyConnect: true })
      try {
        return redisAddress(redis)
      } finally {
        redis.disconnect()
      }
    }
    expect(address('redis://reader@db.example:6380')).toBe('redis://reader@db.example:6380')
    expect(address('redis://:s3cret-pw@db.example:6380')).toBe('redis://:***@db.example:6380')
    expect(address('rediss://db.example:6380/3')).toBe('rediss://db.example:6380/3')
    expect(address({ path: '/run/redis.sock', password: 'pw' })).toBe(':***@unix:/run/redis.sock')
  })

  it('keeps the error it reports on as the cause, and logs one line of it by default', () => {
    const refused = new Error('connect ECONNREFUSED')
    expect(unreachable(false, 'redis://h:1', refused).cause).toBe(refused)
    expect(unreachable(true, 'redis://h:1', refused).cause).toBe(refused)
    const printed = vi.spyOn(console, 'error')
    try {
      logOutage('Redis task store')(unreachable(true, 'redis://h:1', new Error('')))
      expect(printed.mock.calls).toEqual([['mcp-edge: Redis task store: lost its connection to redis://h:1 (no reason given); reconnecting']])
    } finally {
      printed.mockRestore()
    }
  })

  it('says so on stderr by default, in one line each, instead of ioredis printing every attempt', async () => {
    const port = await freePort()
    const script = `
      import { redisBackplane, redisTaskStore } from './adapters/redis/index.ts'
      const url = 'redis://:s3cret-pw@127.0.0.1:${port}'
      const backplane = redisBackplane({ url })
      const store = redisTaskStore({ url })
      setTimeout(() => Promise.all([backplane.close(), store.close()]), 1500)`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (c) => (stderr += c))
    await once(child, 'exit')
    expect(stderr.trim().split('\n').sort()).toEqual([
      `mcp-edge: Redis backplane: could not connect to redis://:***@127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); retrying`,
      `mcp-edge: Redis task store: could not connect to redis://:***@127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port}); retrying`,
    ])
  })
})

/** Retries `attempt` until it succeeds (Redis coming back takes the connections a moment). */
async function waitFor(attempt: () => Promise<unknown>, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
    try {
      await attempt()
      return
    } catch (e) {
      if (Date.now() > end) throw e
    }
  }
}
