/**
 * What createWorker takes from its bindings: the vars MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS and
 * MCP_LISTEN_MAX_PER_CLIENT as a deployment sets them, and where a lost hub connection is told.
 */
import { createExecutionContext, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker, type McpHub } from '../../adapters/cloudflare/index.js'
import { until } from '../helpers/async.js'
import { shardOf } from '../../src/core.js'
import { listChanged, McpServer, tasks } from '../../src/index.js'
import { META, mcpRequest, sseReader } from './sse.js'

const SECRET = { MCP_REQUEST_STATE_SECRET: 'worker-options-secret-0123456789abcdef' }
const server = new McpServer({ name: 'options', version: '1.0.0' }).tool('plain', { description: 'answers' }, () => 'plain')

/** The status of tools/list sent to `url` (its host the Host), with these headers, through a Worker with these vars. */
async function status(vars: Record<string, unknown>, url: string, headers: Record<string, string> = {}): Promise<number> {
  const request = mcpRequest('tools/list', {})
  for (const [name, value] of Object.entries(headers)) request.headers.set(name, value)
  const res = await createWorker(server).fetch(new Request(url, request), { ...SECRET, ...vars }, createExecutionContext())
  await res.body?.cancel()
  return res.status
}

describe('a Worker\'s vars', () => {
  it('takes MCP_ALLOWED_HOSTS as a comma-separated list, spaces and empty items aside', async () => {
    const vars = { MCP_ALLOWED_HOSTS: ' mcp.example.com , api.example.com,,' }
    expect(await status(vars, 'https://mcp.example.com/mcp')).toBe(200)
    expect(await status(vars, 'https://api.example.com/mcp')).toBe(200)
    expect(await status(vars, 'https://other.example.com/mcp')).toBe(403)
    expect(await status({ MCP_ALLOWED_HOSTS: 'api.example.com' }, 'https://mcp.example.com/mcp')).toBe(403)
  })

  it('serves any Host when MCP_ALLOWED_HOSTS is unset, empty or blank', async () => {
    for (const vars of [{}, { MCP_ALLOWED_HOSTS: '' }, { MCP_ALLOWED_HOSTS: '  ' }]) {
      expect(await status(vars, 'https://anything.example.net/mcp')).toBe(200)
    }
  })

  it('takes MCP_ALLOWED_ORIGINS as a comma-separated list', async () => {
    const vars = { MCP_ALLOWED_ORIGINS: 'https://app.example.com, https://admin.example.com' }
    expect(await status(vars, 'https://mcp.example.com/mcp', { origin: 'https://admin.example.com' })).toBe(200)
    expect(await status(vars, 'https://mcp.example.com/mcp', { origin: 'https://evil.example.com' })).toBe(403)
  })

  /** Opens listen streams from one address until one is refused: the statuses, all streams closed after. */
  async function listens(vars: Record<string, unknown>, count: number): Promise<number[]> {
    const worker = createWorker(server)
    const bindings = { ...SECRET, ...vars }
    const responses: Response[] = []
    for (let i = 0; i < count; i++) {
      const request = mcpRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, `l-${i}`)
      request.headers.set('cf-connecting-ip', '203.0.113.7')
      responses.push(await worker.fetch(request, bindings, createExecutionContext()))
    }
    await Promise.all(responses.map((r) => r.body?.cancel()))
    return responses.map((r) => r.status)
  }

  it('takes MCP_LISTEN_MAX_PER_CLIENT as the most listen streams one client may hold', async () => {
    expect(await listens({ MCP_LISTEN_MAX_PER_CLIENT: '10' }, 11)).toEqual([...Array<number>(10).fill(200), 429])
  })

  it('ignores an MCP_LISTEN_MAX_PER_CLIENT that is not plain digits', async () => {
    for (const value of [' 2', '2 ', '2x', 'x2']) {
      expect(await listens({ MCP_LISTEN_MAX_PER_CLIENT: value }, 3)).toEqual([200, 200, 200])
    }
  })

  it('refuses an MCP_HUB_RELAYS that is not a whole number from 0 to 1000, naming it, with or without the hub', async () => {
    for (const value of ['x', ' 2', '2x', '-1', '1.5', '', '1001', 1001, 2.5, true]) {
      for (const hub of [{}, { MCP_HUB: env.MCP_HUB }]) {
        await expect(status({ ...hub, MCP_HUB_RELAYS: value }, 'https://mcp.example.com/mcp'), JSON.stringify(value))
          .rejects.toThrow(`the var MCP_HUB_RELAYS must be a whole number from 0 to 1000 (relay hubs per shard), not ${JSON.stringify(value)}`)
      }
    }
    // The option, when given, is the count: the var is not read.
    const worker = createWorker(server, { relays: 2 })
    const res = await worker.fetch(mcpRequest('tools/list', {}), { ...SECRET, MCP_HUB: env.MCP_HUB, MCP_HUB_RELAYS: 'x' }, createExecutionContext())
    expect(res.status).toBe(200)
    await res.body?.cancel()
  })

  it('takes MCP_HUB_RELAYS as digits or a number, 0 and 1000 included', async () => {
    for (const value of ['0', '3', 3, '1000']) expect(await listens({ MCP_HUB: env.MCP_HUB, MCP_HUB_RELAYS: value }, 1)).toEqual([200])
  })
})

describe('a Worker\'s bindings and paths', () => {
  it('refuses at once, before any request brings bindings, a task tool without tasks()', () => {
    const tasked = new McpServer({ name: 'tasked', version: '1.0.0' }).tool('report', { task: 'required' }, () => 'done')
    expect(() => createWorker(tasked)).toThrow('tool "report" is declared with `task`, but tasks are not served')
    expect(() => createWorker(tasked, { extensions: [tasks()] })).not.toThrow()
  })

  it('answers at `path` instead of /mcp when given one', async () => {
    const worker = createWorker(server, { path: '/api/mcp' })
    const at = async (url: string) => (await worker.fetch(new Request(url, mcpRequest('tools/list', {})), { ...SECRET }, createExecutionContext())).status
    expect(await at('https://mcp.example.com/api/mcp')).toBe(200)
    expect(await at('https://mcp.example.com/mcp')).toBe(404)
  })

  it('counts an empty MCP_REQUEST_STATE_SECRET as unset: the key the hub keeps serves instead', async () => {
    const asking = new McpServer({ name: 'asking', version: '1' }).tool('confirm', { description: 'Asks first' }, async (_a, ctx) => {
      const answer = await ctx.elicit('sure', { message: 'Sure?', requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } } })
      return `answered ${answer.action}`
    })
    const worker = createWorker(asking)
    const bindings = { MCP_REQUEST_STATE_SECRET: '', MCP_HUB: env.MCP_HUB }
    const ASKING = { ...META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
    const call = async (params: Record<string, unknown>) =>
      await (await worker.fetch(mcpRequest('tools/call', { name: 'confirm', arguments: {}, ...params }, 1, ASKING), bindings, createExecutionContext())).json() as any
    const { requestState } = (await call({})).result
    expect(requestState).toEqual(expect.any(String))
    const answered = await call({ requestState, inputResponses: { sure: { action: 'accept', content: { sure: true } } } })
    expect(answered.result.content[0].text).toBe('answered accept')
  })
})

describe('a Worker\'s hub connections', () => {
  it('tell onError of a lost one, during backplane, and the listen stream gets a refetch cue', async () => {
    const told: [unknown, unknown][] = []
    const worker = createWorker(server, { onError: (e, context) => void told.push([e, context]) })
    const res = await worker.fetch(mcpRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'lost'), { ...SECRET, MCP_HUB: env.MCP_HUB }, createExecutionContext())
    const stream = sseReader(res.body!)
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    const hub = env.MCP_HUB.get(env.MCP_HUB.idFromName(`mcp-hub-${shardOf(listChanged('tools').topic, 4)}`))
    await runInDurableObject(hub, async (_hub: McpHub, state: DurableObjectState) => {
      for (const ws of state.getWebSockets()) ws.close(4000, 'going away')
    })
    expect((await stream.next()).method).toBe('notifications/tools/list_changed')
    await until(() => told.length > 0)
    expect(told).toEqual([[new Error('the hub closed the connection (4000 going away)'), { during: 'backplane' }]])
    await stream.cancel()
  })
})
