/**
 * The SDK clients in their default mode (the 2025 handshake: v1, and v2, on which MCP Inspector 2 is built)
 * against two `npm start` processes sharing Redis, behind a round-robin proxy: every request of a session
 * may land on the other process. A tool that elicits and one that samples are answered end to end, and a
 * resource update made on one process reaches the session's GET stream on whichever holds it.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { REDIS_URL } from '../helpers/redis.js'
import { roundRobin, type RoundRobin } from '../helpers/round-robin.js'
import { TEST_SECRET } from '../helpers/server.js'

let servers: EverythingProcess[]
let proxy: RoundRobin
beforeAll(async () => {
  const env = { REDIS_URL, REDIS_PREFIX: `v1-sessions-${randomBytes(4).toString('hex')}:`, MCP_REQUEST_STATE_SECRET: TEST_SECRET }
  servers = await Promise.all([startEverythingProcess(env), startEverythingProcess(env)])
  proxy = await roundRobin(servers.map((s) => s.url))
})
afterAll(async () => {
  await proxy?.close()
  await Promise.all(servers.map((s) => s.stop()))
})

async function connect() {
  const client = new Client({ name: 'sdk-v1-sessions', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } })
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url))
  await client.connect(transport)
  return { client, transport }
}

describe('SDK v1 client across two processes, no affinity', () => {
  it('a tool that elicits and one that samples: asked on one process, answered through the other', async () => {
    const { client } = await connect()
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'a@b.c' } }))
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }))
    const before = proxy.log.length
    // Several rounds, so that the call and its answer land on different processes whatever the proxy's turn.
    for (let i = 0; i < 3; i++) {
      expect((await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } })).content).toEqual([
        { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"a@b.c"}' },
      ])
      expect((await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital?' } })).content).toEqual([{ type: 'text', text: 'LLM response: Paris' }])
    }
    const posts = proxy.log.slice(before).filter((r) => r.method === 'POST').map((r) => ({ upstream: r.upstream, message: JSON.parse(r.body) }))
    const calls = posts.filter((p) => p.message.method === 'tools/call')
    const answers = posts.filter((p) => typeof p.message.id === 'string' && p.message.id.startsWith('mcp-edge-'))
    expect(calls).toHaveLength(6)
    expect(answers).toHaveLength(6)
    // Some answer reached the process that did not ask.
    expect(calls.some((c, i) => c.upstream !== answers[i]!.upstream)).toBe(true)
    await client.close()
  })

  it('a resource subscription delivers an update made on the other process', async () => {
    const { client } = await connect()
    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true })
    await client.subscribeResource({ uri: 'test://watched-resource' })
    // The GET stream opened after initialize, on one process; two calls in a row land one on each.
    await until(() => proxy.log.some((r) => r.method === 'GET'), 5000, 'the GET stream')
    const before = proxy.log.length
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await until(() => updates.length === 2, 5000, 'two updates')
    expect(updates).toEqual(['test://watched-resource', 'test://watched-resource'])
    expect(new Set(proxy.log.slice(before).filter((r) => r.method === 'POST').map((r) => r.upstream))).toEqual(new Set([0, 1]))
    await client.close()
  })
})

describe('SDK v2 client in its default mode (2025), across two processes', () => {
  it('initializes a session; elicits and samples through either process; gets an update made on either', async () => {
    const client = new V2Client({ name: 'sdk-v2-sessions', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } } })
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { username: 'grace', email: 'g@h.i' } }))
    client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'Lyon' }, model: 'm' }))
    const updates: string[] = []
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri))
    const start = proxy.log.length
    const transport = new V2Transport(new URL(proxy.url))
    await client.connect(transport)
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]{40,}$/)
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true })
    for (let i = 0; i < 2; i++) {
      expect((await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } })).content).toEqual([
        { type: 'text', text: 'User response: action=accept, content={"username":"grace","email":"g@h.i"}' },
      ])
      expect((await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Second city?' } })).content).toEqual([{ type: 'text', text: 'LLM response: Lyon' }])
    }
    await client.subscribeResource({ uri: 'test://watched-resource' })
    await until(() => proxy.log.slice(start).some((r) => r.method === 'GET'), 5000, 'the GET stream')
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await until(() => updates.length === 2, 5000, 'two updates')
    await client.close()
  })
})
