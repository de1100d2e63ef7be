/**
 * A 2025 session ended (DELETE) on Redis stays ended: on a second process at once (its record), and after
 * Redis lost its data (restarted without persistence), when the record of the end is gone: the epoch kept
 * beside it is gone too, and ids sealed under the old one are refused (src/http/session/epoch.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { ownRedis } from '../helpers/redis.js'
import { endSession, inSession, openSession } from '../helpers/session-client.js'

let redis: Awaited<ReturnType<typeof ownRedis>>
let a: EverythingProcess
let b: EverythingProcess | undefined
let env: Record<string, string>
beforeAll(async () => {
  redis = await ownRedis()
  env = { REDIS_URL: redis.url, MCP_REQUEST_STATE_SECRET: 'epoch-secret-0123456789abcdefghijkl' }
  a = await startEverythingProcess(env)
})
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await redis?.stop()
})

describe('2025 sessions on Redis, DELETE then the record lost', () => {
  it('a deleted session gets 404 on a second process, and after Redis lost its data, on every process', async () => {
    const deleted = await openSession(a.url)
    const kept = await openSession(a.url)
    expect(await endSession(a.url, deleted)).toBe(204)
    b = await startEverythingProcess(env)
    expect([await inSession(b.url, deleted), await inSession(b.url, kept)]).toEqual([404, 200])

    // Redis restarts empty: the record of the end is lost.
    await redis.stop()
    await redis.start()
    await b.stop()
    b = await startEverythingProcess(env)
    expect(await inSession(b.url, deleted)).toBe(404)
    // The first process goes by the epoch it read for up to a second, then reads the new one.
    let onA = await inSession(a.url, deleted)
    for (const end = Date.now() + 5000; onA !== 404 && Date.now() < end; await new Promise((r) => setTimeout(r, 100))) onA = await inSession(a.url, deleted)
    expect(onA).toBe(404)
    // The tradeoff: every session sealed before the loss ends with it; a new one works on both.
    expect(await inSession(b.url, kept)).toBe(404)
    const fresh = await openSession(b.url)
    expect([await inSession(a.url, fresh), await inSession(b.url, fresh)]).toEqual([200, 200])
  }, 60_000)
})
