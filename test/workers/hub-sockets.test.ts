/**
 * The McpHub's own door, as anything that opens a socket to it sees it: what it refuses and why, how it
 * answers a subscriber's close, and a publish on the hub-wide tag. Each test has hub objects of its own.
 */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'

const hubNamed = (name: string) => env.MCP_HUB.get(env.MCP_HUB.idFromName(name))
const fresh = () => hubNamed(`hub-sockets-${crypto.randomUUID()}`)
type Hub = ReturnType<typeof fresh>
const RULE = 'x-mcp-topics must be a JSON array of 1 to 10 tags, or of * alone'

/** A WebSocket upgrade to `hub` whose x-mcp-topics header is `header` (none if undefined). */
const upgrade = (hub: Hub, header: string | undefined, headers: Record<string, string> = { upgrade: 'websocket' }) =>
  hub.fetch('https://hub/subscribe', { headers: header === undefined ? headers : { ...headers, 'x-mcp-topics': header } })

/** A socket accepted by `hub` with these tags, and its close as the subscriber sees it. */
async function subscriber(hub: Hub, tags: unknown[]) {
  const res = await upgrade(hub, JSON.stringify(tags))
  expect(res.status).toBe(101)
  const ws = res.webSocket!
  ws.accept()
  const messages: string[] = []
  ws.addEventListener('message', (e) => void messages.push(e.data as string))
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })))
  return { ws, messages, closed }
}

const tags = (count: number, label: string) => Array.from({ length: count }, (_, i) => `${label}-${i}`)

describe('the hub\'s door', () => {
  it('answers 426 to a request that is not a WebSocket upgrade, and takes the upgrade header in any case', async () => {
    const hub = fresh()
    for (const headers of [{}, { upgrade: 'h2c' }]) {
      const res = await upgrade(hub, '["a"]', headers)
      expect(res.status).toBe(426)
      expect(await res.text()).toBe('The hub only accepts WebSocket connections')
    }
    const mixedCase = await upgrade(hub, '["a"]', { upgrade: 'WebSocket' })
    expect(mixedCase.status).toBe(101)
    mixedCase.webSocket!.accept()
    mixedCase.webSocket!.close()
  })

  it('accepts 1 to 10 tags of 1 to 256 characters, or * alone', async () => {
    const hub = fresh()
    for (const accepted of [['a'], tags(10, 'ten'), ['x'.repeat(256)], ['*']]) {
      const { ws, closed } = await subscriber(hub, accepted)
      ws.close()
      await closed
    }
  })

  it('refuses, with 400 and the rule, topics that are missing, not a JSON array, none, too many, not non-empty strings of at most 256, or * among others', async () => {
    const hub = fresh()
    const refused: (string | undefined)[] = [
      undefined, 'not json', '"a"', '{"0":"a"}', '[]', JSON.stringify(tags(11, 'eleven')),
      '[""]', '["a",""]', '[1]', '[["a"]]', '[{"length":1}]', JSON.stringify(['x'.repeat(257)]), JSON.stringify(['a', 'y'.repeat(257)]), '["*","a"]',
    ]
    for (const header of refused) {
      const res = await upgrade(hub, header)
      expect({ header, status: res.status, body: await res.text() }).toEqual({ header, status: 400, body: RULE })
    }
  })

  it('answers a subscriber\'s close with its code, or 1000 where it gave none, saying bye', async () => {
    const hub = fresh()
    const coded = await subscriber(hub, ['coded'])
    coded.ws.close(4001, 'leaving')
    expect(await coded.closed).toEqual({ code: 4001, reason: 'bye' })
    // No code sends no status (1005 on the hub's side), which a close frame may not carry back.
    const plain = await subscriber(hub, ['plain'])
    plain.ws.close()
    expect(await plain.closed).toEqual({ code: 1000, reason: 'bye' })
  })

  it('sends a publish on the hub-wide tag once to each hub-wide socket, and not to tagged ones', async () => {
    const hub = fresh()
    const wide = await subscriber(hub, ['*'])
    const tagged = await subscriber(hub, ['a'])
    expect(await hub.publish('*', 'to all')).toBe(1)
    expect(await hub.publish('a', 'to a')).toBe(2)
    // Per socket, messages keep their order: the second publish's arrival means the first's has come.
    await until(() => wide.messages.length === 2 && tagged.messages.length === 1)
    expect({ wide: wide.messages, tagged: tagged.messages }).toEqual({ wide: ['to all', 'to a'], tagged: ['to a'] })
    wide.ws.close()
    tagged.ws.close()
  })
})
