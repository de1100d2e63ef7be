/**
 * hubBackplane on its own, over hub objects of each test's own: the tags its sockets carry, a subscription
 * the hub refuses, and a hub connection lost (reported, re-opened with backoff, or left closed when the
 * subscription is).
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { McpHub } from '../../adapters/cloudflare/index.js'
import { hubBackplane, tagOf, type HubBackplaneOptions } from '../../adapters/cloudflare/backplane.js'
import { shardOf } from '../../src/core.js'
import { createFetchHandler, isResync, McpServer, type ChangeEvent, type Resync } from '../../src/index.js'

const hubNamed = (name: string) => env.MCP_HUB.get(env.MCP_HUB.idFromName(name))
/** The tags of each socket a hub holds, in no particular order. */
const socketTags = (name: string) => runInDurableObject(hubNamed(name), async (_hub: McpHub, state: DurableObjectState) => state.getWebSockets().map((ws) => state.getTags(ws)))
/** The hub drops every socket it holds, as a restart of it would, with a close the subscriber can read. */
const dropSockets = (name: string) => runInDurableObject(hubNamed(name), async (_hub: McpHub, state: DurableObjectState) => {
  for (const ws of state.getWebSockets()) ws.close(4000, 'going away')
})

/**
 * Polls an async condition, on workerd's own clock (scheduler.wait), which fake timers leave alone; fails
 * after 5 s (a bound for a broken run).
 */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const end = Date.now() + 5000; !(await check()); await scheduler.wait(5)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
  }
}

/** A backplane over hubs of its own: one hub unless `shards` says otherwise. */
function ownHubs(options: Partial<HubBackplaneOptions> = {}) {
  const name = `bp-${crypto.randomUUID()}-`
  return { name, hub: `${name}0`, backplane: hubBackplane({ namespace: () => env.MCP_HUB, name, shards: 1, ...options }) }
}

/** A listener that keeps what it hears: a topic, or `resync`. */
function heard() {
  const got: string[] = []
  return { got, listener: (e: ChangeEvent | Resync) => void got.push(isResync(e) ? 'resync' : e.topic) }
}

const topics = (count: number, label: string) => Array.from({ length: count }, (_, i) => `resource:test://${label}/${i}`)
/** Two topics of 221 characters whose hashes collide (found by search), so their tags are one. */
const colliding = ['001vl8', '00ipd6'].map((tail) => `resource:test://collide/${'x'.repeat(190)}/${tail}`)

describe('hubBackplane\'s sockets', () => {
  it('names itself durable-objects in a handler\'s summary, and by default spreads topics over the hubs mcp-hub-0 to 3', async () => {
    const backplane = hubBackplane({ namespace: () => env.MCP_HUB })
    const server = new McpServer({ name: 'summary', version: '1' }).tool('t', { description: 't' }, () => '')
    expect(createFetchHandler(server, { allowedHosts: '*', backplane }).summary.backplane).toBe('durable-objects')
    const topic = `resource:test://default-hub/${crypto.randomUUID()}`
    const subscription = await backplane.subscribe([topic], () => {})
    expect(await socketTags(`mcp-hub-${shardOf(topic, 4)}`)).toContainEqual([topic])
    await subscription.close()
  })

  it('tags a topic of up to 200 characters with itself and a longer one with a hash of it, and delivers each to its own', async () => {
    const { hub, backplane } = ownHubs()
    const [t200, t201, t300] = [200, 201, 300].map((length) => `resource:test://long/${'y'.repeat(length - 'resource:test://long/'.length)}`) as [string, string, string]
    const ears = [heard(), heard(), heard()] as const
    const subscriptions = await Promise.all([t200, t201, t300].map((topic, i) => backplane.subscribe([topic], ears[i]!.listener)))
    const tags = (await socketTags(hub)).map(([tag]) => tag!)
    expect(tags).toHaveLength(3)
    expect(tags).toContain(t200)
    expect(tags.filter((t) => /^hash:[0-9a-z]+:201$/.test(t))).toHaveLength(1)
    expect(tags.filter((t) => /^hash:[0-9a-z]+:300$/.test(t))).toHaveLength(1)
    for (const topic of [t200, t201, t300]) await backplane.publish({ topic })
    // Each socket's messages keep their order: a second publish of its own topic comes after anything else it got.
    for (const [i, topic] of [t200, t201, t300].entries()) {
      await backplane.publish({ topic })
      await eventually(() => ears[i]!.got.length >= 2, 'the second publish')
    }
    expect(ears.map((e) => e.got)).toEqual([[t200, t200], [t201, t201], [t300, t300]])
    await Promise.all(subscriptions.map((s) => s.close()))
  })

  it('gives two topics whose hashes collide one tag, which counts once toward the 10, and hears both', async () => {
    const { hub, backplane } = ownHubs()
    const shared = tagOf(colliding[0]!)
    expect(tagOf(colliding[1]!)).toBe(shared)
    const ear = heard()
    // Eleven topics, ten tags: still a socket of its own topics, not the whole hub.
    const subscription = await backplane.subscribe([...topics(9, 'nine'), ...colliding], ear.listener)
    expect(await socketTags(hub)).toEqual([[...topics(9, 'nine'), shared]])
    for (const topic of colliding) await backplane.publish({ topic })
    await eventually(() => ear.got.length === 2, 'both topics')
    expect(ear.got).toEqual(colliding)
    await subscription.close()
  })

  it('tags a socket with each of up to 10 topics on one hub, and takes the whole hub (*) from the 11th', async () => {
    const { hub, backplane } = ownHubs()
    const ten = await backplane.subscribe(topics(10, 'ten'), () => {})
    expect(await socketTags(hub)).toEqual([topics(10, 'ten')])
    await ten.close()
    const { hub: other, backplane: another } = ownHubs()
    const eleven = await another.subscribe(topics(11, 'eleven'), () => {})
    expect(await socketTags(other)).toEqual([['*']])
    await eleven.close()
  })

  it('fails a subscription a hub refuses, with the hub\'s status, and closes the sockets it had opened on other hubs', async () => {
    const { name, backplane } = ownHubs({ shards: 2 })
    // An empty topic makes an empty tag, which a hub refuses; the other topic's hub is asked first.
    const accepted = topics(10, 'refusal').find((t) => shardOf(t, 2) !== shardOf('', 2))!
    await expect(backplane.subscribe([accepted, ''], () => {})).rejects.toThrow('the hub refused the subscription (400: x-mcp-topics must be a JSON array of 1 to 10 tags, or of * alone)')
    const opened = `${name}${shardOf(accepted, 2)}`
    await eventually(async () => (await socketTags(opened)).length === 0, 'the opened socket to close')
  })
})

describe('a lost hub connection', () => {
  afterEach(() => void vi.useRealTimers())
  const topic = 'resource:test://lost/1'

  /** A backplane whose hub lookups are counted, and fail while `reachable` is false: each is one try to connect. */
  function countedHubs() {
    const name = `bp-${crypto.randomUUID()}-`
    const state = { reachable: true, lookups: 0, errors: [] as unknown[] }
    const backplane = hubBackplane({
      name, shards: 1, onError: (e) => void state.errors.push(e),
      namespace: () => {
        state.lookups++
        if (!state.reachable) throw new Error('the hub cannot be reached')
        return env.MCP_HUB
      },
    })
    return { hub: `${name}0`, backplane, state }
  }

  it('is told to onError with the hub\'s close, and re-opened: the listener gets a resync, then later publishes', async () => {
    const errors: unknown[] = []
    const { hub, backplane } = ownHubs({ onError: (e) => void errors.push(e) })
    const ear = heard()
    const subscription = await backplane.subscribe([topic], ear.listener)
    await dropSockets(hub)
    await eventually(() => ear.got.includes('resync'), 'the resync')
    expect(errors).toEqual([new Error('the hub closed the connection (4000 going away)')])
    await backplane.publish({ topic })
    await eventually(() => ear.got.length === 2, 'the publish after the reconnect')
    expect(ear.got).toEqual(['resync', topic])
    await subscription.close()
  })

  it('goes to console.error when no onError is given', async () => {
    const { hub, backplane } = ownHubs()
    const subscription = await backplane.subscribe([topic], () => {})
    // Watched, not replaced: the line still goes to workerd's console.
    const spy = vi.spyOn(console, 'error')
    try {
      await dropSockets(hub)
      const lost = () => spy.mock.calls.filter(([first]) => first === 'mcp-edge: a hub connection was lost:')
      await eventually(() => lost().length > 0, 'the console line')
      expect(lost()).toEqual([['mcp-edge: a hub connection was lost:', new Error('the hub closed the connection (4000 going away)')]])
    } finally {
      spy.mockRestore()
    }
    await subscription.close()
  })

  it('tries again after 100 ms, then twice as long after each failed try, up to 5 s; after a success, from 100 ms again', async () => {
    const { hub, backplane, state } = countedHubs()
    const ear = heard()
    const subscription = await backplane.subscribe([topic], ear.listener)
    expect(state.lookups).toBe(1)
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    state.reachable = false
    await dropSockets(hub)
    await eventually(() => state.errors.length === 1, 'the loss')
    const waits = [100, 200, 400, 800, 1600, 3200, 5000, 5000]
    for (const [i, wait] of waits.entries()) {
      // Not a millisecond early.
      await vi.advanceTimersByTimeAsync(wait - 1)
      await scheduler.wait(1)
      expect(state.lookups, `before try ${i + 1}`).toBe(1 + i)
      await vi.advanceTimersByTimeAsync(1)
      await eventually(() => state.lookups === 2 + i, `try ${i + 1}`)
    }
    state.reachable = true
    await vi.advanceTimersByTimeAsync(5000)
    await eventually(() => ear.got.includes('resync'), 'the resync')
    // Failed tries are the same loss, told once.
    expect(state.errors).toHaveLength(1)
    const tries = state.lookups
    await dropSockets(hub)
    await eventually(() => state.errors.length === 2, 'the second loss')
    await vi.advanceTimersByTimeAsync(99)
    await scheduler.wait(1)
    expect(state.lookups).toBe(tries)
    await vi.advanceTimersByTimeAsync(1)
    await eventually(() => ear.got.filter((e) => e === 'resync').length === 2, 'the second resync')
    await subscription.close()
  })

  it('is not re-opened once the subscription is closed while it waits to try', async () => {
    const { hub, backplane, state } = countedHubs()
    const ear = heard()
    const subscription = await backplane.subscribe([topic], ear.listener)
    vi.useFakeTimers({ toFake: ['setTimeout'] })
    await dropSockets(hub)
    await eventually(() => state.errors.length === 1, 'the loss')
    await subscription.close()
    await vi.advanceTimersByTimeAsync(5000)
    await scheduler.wait(1)
    expect(state.lookups).toBe(1)
    expect(ear.got).toEqual([])
    expect(await socketTags(hub)).toEqual([])
  })

  it('is not what closing a subscription does: nothing is told to onError, nothing re-opened', async () => {
    const { hub, backplane, state } = countedHubs()
    const subscription = await backplane.subscribe([topic], () => {})
    await subscription.close()
    await eventually(async () => (await socketTags(hub)).length === 0, 'the hub to let the socket go')
    expect(state.errors).toEqual([])
    expect(state.lookups).toBe(1)
  })
})
