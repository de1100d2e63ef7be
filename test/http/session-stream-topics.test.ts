/**
 * What a 2025 session's GET stream holds of the backplane (issue 45, finding 3): one subscription per topic
 * it follows, given back when the session unsubscribes and when the stream closes, over a real server and
 * its memory backplane; and the memory backplane itself, for a listener with several subscriptions.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { createRuntime, SessionStream } from '../../src/core.js'
import { memoryBackplane, tasks, type ChangeEvent, type Resync } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { turns, until } from '../helpers/async.js'
import { heldTopics, type HeldTopics } from '../helpers/held-topics.js'
import { startEverything } from '../helpers/server.js'

let running: RunningServer | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

const LEGACY = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

/** A 2025 client of a real server: its session, its GET stream and its subscriptions. */
async function client(url: string) {
  const post = async (body: object, session?: string) => {
    const res = await fetch(url, { method: 'POST', headers: session ? { ...LEGACY, 'mcp-session-id': session } : LEGACY, body: JSON.stringify(body) })
    return { res, body: await res.json() as Record<string, any> }
  }
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
  const session = init.res.headers.get('mcp-session-id')!
  expect(session).toBeTruthy()
  let id = 0
  return {
    async subscribe(uri: string, on = true) {
      const { body } = await post({ jsonrpc: '2.0', id: ++id, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } }, session)
      expect(body).toMatchObject({ result: {} })
    },
    /**
     * Opens the GET stream, read as it comes (its headers may wait for its first bytes: a keep-alive or a
     * notification); aborting the returned controller is the client leaving.
     */
    open() {
      const leave = new AbortController()
      void fetch(url, { headers: { ...LEGACY, 'mcp-session-id': session }, signal: leave.signal })
        .then((res) => res.body!.pipeTo(new WritableStream(), { signal: leave.signal }))
        .catch(() => {})
      return leave
    },
  }
}

const resource = (uri: string) => `resource:${uri}`
const followsSession = (held: HeldTopics) => [...held.open.keys()].some((t) => t.startsWith('session:'))

/** Publishes on every topic ever subscribed: what the backplane still hands to a listener that left shows in `stray`. */
async function publishEverywhere(held: HeldTopics) {
  for (const topic of held.seen) await held.publish({ topic } satisfies ChangeEvent)
  await turns()
}

describe("a 2025 session's GET stream and the backplane", () => {
  it('leaves no listener on any topic when it closes, reconnect after reconnect (open, resources/subscribe, close)', async () => {
    const held = heldTopics(memoryBackplane())
    running = await startEverything({ backplane: held })
    const c = await client(running.url)
    for (let i = 0; i < 20; i++) {
      const uri = `test://template/${i}/data`
      const stream = c.open()
      await until(() => followsSession(held), 5000, 'the stream to follow its session')
      await c.subscribe(uri)
      await until(() => held.open.has(resource(uri)), 5000, 'the stream to follow the URI')
      stream.abort()
      await until(() => held.open.size === 0, 5000, 'the stream to give back its topics')
      // Not kept by the session either: the next stream starts without it.
      await c.subscribe(uri, false)
    }
    await publishEverywhere(held)
    expect(held.stray).toEqual([])
  })

  it('gives a topic back when the session unsubscribes: its topics stay bounded however often it does', async () => {
    const held = heldTopics(memoryBackplane())
    running = await startEverything({ backplane: held })
    const c = await client(running.url)
    const stream = c.open()
    await until(() => followsSession(held), 5000, 'the stream to follow its session')
    const settled = held.open.size
    for (let i = 0; i < 100; i++) {
      const uri = `test://template/${i}/data`
      await c.subscribe(uri)
      await until(() => held.open.has(resource(uri)), 5000, 'the stream to follow the URI')
      await c.subscribe(uri, false)
      await until(() => !held.open.has(resource(uri)), 5000, 'the stream to drop the URI')
    }
    expect(held.open.size).toBe(settled)
    expect([...held.open.values()].every((n) => n === 1)).toBe(true)
    stream.abort()
    await until(() => held.open.size === 0, 5000, 'the stream to give back its topics')
  })
})

describe('a session stream followed and unfollowed 20,000 times (as stdio does, and every instance on its session topic)', () => {
  it('holds one subscription per topic it follows, and none once closed', async () => {
    const fanout = memoryBackplane()
    const held = heldTopics(fanout)
    const runtime = createRuntime(createEverythingServer(), { backplane: held, extensions: [tasks()] })
    const stream = new SessionStream(runtime, { uris: [], client: undefined, expires: Infinity }, { write: () => {}, close: () => {} })
    stream.start()
    await turns()
    const lists = held.open.size
    expect(lists).toBe(3)
    stream.follow('test://watched-resource', true)
    for (let i = 0; i < 20_000; i++) {
      // Each URI once, and one URI again and again, followed twice in a row as an event may come twice.
      for (const uri of [`test://template/${i}/data`, 'test://static-text']) {
        stream.follow(uri, true)
        stream.follow(uri, true)
        stream.follow(uri, false)
      }
      if (i % 1000 === 999) await turns(1)
    }
    await turns()
    expect([...held.open.keys()].filter((t) => t.startsWith('resource:'))).toEqual(['resource:test://watched-resource'])
    expect(held.open.size).toBe(lists + 1)
    expect([...held.open.values()].every((n) => n === 1)).toBe(true)
    expect(fanout.topics).toBe(held.open.size)
    stream.end()
    await turns()
    expect([held.open.size, fanout.size, fanout.topics]).toEqual([0, 0, 0])
    await publishEverywhere(held)
    expect(held.stray).toEqual([])
  })

  it('subscribes nothing once ended: a change told after the end holds no topic', async () => {
    const held = heldTopics(memoryBackplane())
    const runtime = createRuntime(createEverythingServer(), { backplane: held, extensions: [tasks()] })
    const stream = new SessionStream(runtime, { uris: ['test://static-text'], client: undefined, expires: Infinity })
    stream.start()
    stream.end()
    stream.follow('test://watched-resource', true)
    await turns()
    expect(held.open.size).toBe(0)
  })
})

describe('the memory backplane, for a listener with several subscriptions', () => {
  it('closes each on its own, keeps no topic once all are closed, and resyncs the listener once', async () => {
    const fanout = memoryBackplane()
    const got: string[] = []
    const listener = (e: ChangeEvent | Resync) => void got.push('resync' in e ? 'resync' : e.topic)
    const [a, b, ab] = [await fanout.subscribe(['a'], listener), await fanout.subscribe(['b'], listener), await fanout.subscribe(['a', 'b', 'a'], listener)]
    fanout.resync()
    expect(got).toEqual(['resync'])
    await ab.close()
    await ab.close()
    await fanout.publish({ topic: 'a' })
    await fanout.publish({ topic: 'b' })
    expect(got).toEqual(['resync', 'a', 'b'])
    expect([fanout.size, fanout.topics]).toEqual([2, 2])
    await a.close()
    await b.close()
    await fanout.publish({ topic: 'a' })
    await fanout.publish({ topic: 'b' })
    expect(got).toEqual(['resync', 'a', 'b'])
    expect([fanout.size, fanout.topics]).toEqual([0, 0])
  })
})
