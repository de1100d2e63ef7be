/**
 * What the Redis users say when Redis is not there: a Redis never reached is "could not connect", one that
 * answered and went away is "lost"; once per outage, and never with the password of the URL.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Redis, type RedisOptions } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { COMMAND_TIMEOUT_MS } from '../../adapters/redis/connection.js'
import { redisBackplane, redisSharedSecret, redisTaskStore, redisUsedStates } from '../../adapters/redis/index.js'
import { logOutage, redisAddress, unreachable } from '../../adapters/redis/outage.js'
import { createFetchHandler, type ErrorContext, listChanged, McpServer, resumable, type SecretSource, type UsedStates } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { freePort } from '../helpers/port.js'
import { ownRedis } from '../helpers/redis.js'
import { META_2026, rpc, TEST_SECRET } from '../helpers/server.js'

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

/**
 * A stalled Redis (SIGSTOP: connections stay open, nothing answers) must not hold requests: each command of
 * the task store, the used states and the shared secret fails within its deadline (COMMAND_TIMEOUT_MS), with
 * an error that names the store, the address and what failed; the client gets -32603 with the error id the
 * server's onError was told, and the store's onError hears of the stall once. After SIGCONT all works again.
 */
describe('Redis stalled: every store command has a deadline', () => {
  /** Generous over the deadline, so as not to flake on a slow machine; far under the 10 s+ it hung before. */
  const BOUND_MS = COMMAND_TIMEOUT_MS + 2000
  let redis: Awaited<ReturnType<typeof ownRedis>>
  beforeAll(async () => {
    redis = await ownRedis()
  })
  afterAll(() => redis?.stop())

  const idIn = (message: string) => /^Internal error \(error id ([0-9a-f]{8})\)$/.exec(message)?.[1]
  const recorded = () => {
    const server: { error: unknown; context: ErrorContext }[] = []
    const store: string[] = []
    return { server, store, onError: (error: unknown, context: ErrorContext) => void server.push({ error, context }), onStoreError: (e: unknown) => void store.push(text(e)) }
  }
  /** `attempt`'s rejection (it must reject) and how long it took. */
  const failure = async (attempt: () => Promise<unknown>) => {
    const started = Date.now()
    const error = await attempt().then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    return { message: text(error), ms: Date.now() - started }
  }
  const confirming = () => new McpServer({ name: 'stalled', version: '1' })
    .tool('confirm', {}, async (_a, ctx) => (await ctx.elicit('ok', { message: 'sure?', requestedSchema: { type: 'object', properties: {} } })).action)
  const confirm = { name: 'confirm', arguments: {}, _meta: META_2026({ elicitation: {} }) }
  const answering = (requestState: string) => ({ ...confirm, requestState, inputResponses: { ok: { action: 'accept' } } })

  it('a task store command: a resumable call is answered -32603 within the deadline, and goes through after SIGCONT', async () => {
    const log = recorded()
    const store = redisTaskStore({ url: redis.url, prefix: `test-${crypto.randomUUID()}:`, onError: log.onStoreError })
    const server = new McpServer({ name: 'stalled', version: '1' }).tool('quick', {}, () => 'done')
    const handler = createFetchHandler(server, { extensions: [resumable({ store })], requestState: { secret: TEST_SECRET }, onError: log.onError })
    const call = { name: 'quick', arguments: {}, _meta: META_2026({ resumableRequests: {} }) }
    try {
      expect(await store.get('nothing')).toBeUndefined() // connected and answering
      redis.pause()
      const started = Date.now()
      const { status, body } = await rpc(handler, 'tools/call', call, { id: 7 })
      expect(Date.now() - started).toBeLessThan(BOUND_MS)
      expect(status).toBe(200)
      expect(body.error.code).toBe(-32603)
      const stalled = `Redis task store: ${redis.url} did not answer within ${COMMAND_TIMEOUT_MS} ms`
      expect(log.server.map((e) => [text(e.error), e.context])).toEqual([
        [`${stalled}; counting a new task failed`, { errorId: idIn(body.error.message), method: 'tools/call', requestId: 7 }],
      ])
      // The store's own operations, each within the deadline; the stall is said once.
      const read = await failure(() => store.get('nothing'))
      expect(read.message).toBe(`${stalled}; reading a task failed`)
      expect(read.ms).toBeLessThan(BOUND_MS)
      expect(log.store).toEqual([`${stalled}; counting a new task failed`])
    } finally {
      redis.resume()
    }
    try {
      const { response } = await rpc(handler, 'tools/call', call, { id: 8 })
      expect(await response.text()).toContain('"text":"done"')
      expect(await store.get('nothing')).toBeUndefined()
    } finally {
      await store.close()
    }
  }, 20_000)

  it('a single-use claim: the retry is answered -32603 within the deadline; after SIGCONT that state is spent, a new round goes through', async () => {
    const log = recorded()
    const used: UsedStates & { close(): Promise<void> } = redisUsedStates({ url: redis.url, prefix: `test-${crypto.randomUUID()}:`, onError: log.onStoreError })
    const handler = createFetchHandler(confirming(), { requestState: { secret: TEST_SECRET, singleUse: used }, onError: log.onError })
    let state = ''
    try {
      expect(await used.claim('warm-up', Date.now() + 60_000)).toBe(true) // connected and answering
      state = (await rpc(handler, 'tools/call', confirm)).body.result.requestState as string
      redis.pause()
      const started = Date.now()
      const { status, body } = await rpc(handler, 'tools/call', answering(state), { id: 'r' })
      expect(Date.now() - started).toBeLessThan(BOUND_MS)
      expect(status).toBe(200)
      expect(body.error.code).toBe(-32603)
      const stalled = `Redis used states: ${redis.url} did not answer within ${COMMAND_TIMEOUT_MS} ms; claiming a requestState failed`
      expect(log.server.map((e) => [text(e.error), e.context])).toEqual([[stalled, { errorId: idIn(body.error.message), method: 'tools/call', requestId: 'r' }]])
      const claim = await failure(() => used.claim('another', Date.now() + 60_000))
      expect(claim).toMatchObject({ message: stalled })
      expect(claim.ms).toBeLessThan(BOUND_MS)
      expect(log.store).toEqual([stalled])
    } finally {
      redis.resume()
    }
    try {
      // The claim already written reached Redis when it woke: the state is spent (single use fails closed).
      expect((await rpc(handler, 'tools/call', answering(state))).body.error.message).toMatch(/used already/)
      const fresh = (await rpc(handler, 'tools/call', confirm)).body.result.requestState as string
      expect((await rpc(handler, 'tools/call', answering(fresh))).body.result.content[0].text).toBe('accept')
    } finally {
      await used.close()
    }
  }, 20_000)

  it('the shared secret: its first read is answered with an error within the deadline, and rounds work after SIGCONT', async () => {
    const log = recorded()
    redis.pause()
    // Made while Redis is stopped: the connection opens, and its handshake is never answered.
    const secret: SecretSource & { close(): Promise<void> } = redisSharedSecret({ url: redis.url, prefix: `test-${crypto.randomUUID()}:`, onError: log.onStoreError })
    const handler = createFetchHandler(confirming(), { requestState: { secret }, onError: log.onError })
    const unreached = `Redis shared secret: could not reach ${redis.url} within ${COMMAND_TIMEOUT_MS} ms; storing the requestState secret failed`
    try {
      const read = await failure(secret)
      expect(read.message).toBe(unreached)
      expect(read.ms).toBeLessThan(BOUND_MS)
      const started = Date.now()
      const { status, body } = await rpc(handler, 'tools/call', confirm, { id: 's' })
      expect(Date.now() - started).toBeLessThan(BOUND_MS)
      expect(status).toBe(200)
      expect(body.error.code).toBe(-32603)
      expect(log.server.map((e) => [text(e.error), e.context])).toEqual([[unreached, { errorId: idIn(body.error.message), method: 'tools/call', requestId: 's' }]])
      expect(log.store).toEqual([unreached])
    } finally {
      redis.resume()
    }
    try {
      const state = (await rpc(handler, 'tools/call', confirm)).body.result.requestState as string
      expect((await rpc(handler, 'tools/call', answering(state))).body.result.content[0].text).toBe('accept')
    } finally {
      await secret.close()
    }
  }, 20_000)
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
