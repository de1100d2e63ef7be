/** The stdio transport: the SDK clients over a real child process, and the raw line protocol. */
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { McpServer, tasks } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { deferred, turns, until } from '../helpers/async.js'
import { gatedBackplane } from '../helpers/backplane.js'
import { mutationEnv } from '../helpers/mutation.js'
import { harness } from '../helpers/stdio.js'
import { META_2026 } from '../helpers/server.js'
import { validateServerMessage } from '../helpers/wire.js'

const ENTRY = { command: process.execPath, args: ['--import', 'tsx', 'examples/everything/stdio.ts'] }

describe('stdio with the SDK clients', () => {
  it('SDK v2 (pinned to 2026-07-28): discover, tools with progress, MRTR, listen', async () => {
    const client = new Client({ name: 'stdio-v2', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
    })
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }))
    await client.connect(new StdioClientTransport({ ...ENTRY, env: mutationEnv(), stderr: 'pipe' }))
    expect((await client.discover()).supportedVersions).toContain('2026-07-28')
    expect((await client.listTools()).tools.length).toBeGreaterThan(10)

    const progress: number[] = []
    const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => void progress.push(p.progress) })
    expect(result.content).toEqual([{ type: 'text', text: 'Progress complete' }])
    // The client may drop the last one, which lands together with the result (the raw tests below see all).
    expect(progress.slice(0, 2)).toEqual([0, 50])

    expect((await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).content).toEqual([{ type: 'text', text: 'Hello, Grace!' }])

    const changes: string[] = []
    client.setNotificationHandler('notifications/tools/list_changed', () => void changes.push('tools'))
    const subscription = await client.listen({ toolsListChanged: true })
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await until(() => changes.length === 1)
    await subscription.close()
    await client.close()
  })

  it('SDK v1 (2025 era): initialize, list, call; the connection is its session: asked mid-call, its log level, its subscriptions', async () => {
    const client = new V1Client({ name: 'stdio-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } })
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'a@b.c' } }))
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }))
    const logs: unknown[] = []
    const updates: string[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
    await client.connect(new V1StdioTransport({ ...ENTRY, env: mutationEnv(), stderr: 'pipe' }))
    expect(client.getServerVersion()?.name).toBe('mcp-edge-everything')
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true })
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('add')
    expect((await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).structuredContent).toEqual({ sum: 42 })
    expect((await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } })).content).toEqual([
      { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"a@b.c"}' },
    ])
    expect((await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital?' } })).content).toEqual([{ type: 'text', text: 'LLM response: Paris' }])
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} })
    expect(logs).toEqual([])
    await client.setLoggingLevel('info')
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} })
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed'])
    await client.subscribeResource({ uri: 'test://watched-resource' })
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await until(() => updates.length === 1, 5000, 'a resource update')
    await client.unsubscribeResource({ uri: 'test://watched-resource' })
    await client.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await client.callTool({ name: 'test_simple_text', arguments: {} })
    expect(updates).toEqual(['test://watched-resource'])
    await client.close()
  })
})

describe('stdio 2025 session', () => {
  const init = (id: number, capabilities: object = { elicitation: {} }) =>
    ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } } })
  const ask = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'test_elicitation', arguments: { message: 'Who?' } } })
  /** The everything server on stdio, its session begun by initialize (id 1). */
  const initialized = async () => {
    const running = await harness(createEverythingServer(), { extensions: [tasks()], maxMessageBytes: 65536 })
    running.send(init(1))
    await until(() => running.lines.some((l) => l.id === 1))
    return running
  }
  const asked = async (lines: Record<string, any>[], n: number) => {
    await until(() => lines.filter((l) => l.method === 'elicitation/create').length >= n, 5000, 'a question')
    return lines.filter((l) => l.method === 'elicitation/create')[n - 1]!
  }

  it("the client's error fails the call; an answer to nothing we asked is refused; a cancelled call is answered by nobody", async () => {
    const { stdio, lines, send } = await initialized()
    send(ask(2))
    const first = await asked(lines, 1)
    expect(first.id).toMatch(/^mcp-edge-\d+$/)
    send({ jsonrpc: '2.0', id: first.id, error: { code: -1, message: 'User declined to answer' } })
    await until(() => lines.some((l) => l.id === 2))
    expect(lines.find((l) => l.id === 2)).toMatchObject({ error: { code: -1, message: 'The client answered User declined to answer' } })
    // The same id again: nothing waits for it any more.
    send({ jsonrpc: '2.0', id: first.id, result: { action: 'accept' } })
    await until(() => lines.some((l) => l.id === first.id && l.error))
    expect(lines.find((l) => l.id === first.id && l.error)!.error).toMatchObject({ code: -32600 })
    send(ask(3))
    const second = await asked(lines, 2)
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } })
    await turns(10)
    // Nothing waits for its answer any more: a late one is a response the server did not ask for.
    send({ jsonrpc: '2.0', id: second.id, result: { action: 'accept', content: { username: 'late', email: 'l@a.te' } } })
    await until(() => lines.some((l) => l.id === second.id && l.error))
    expect(lines.some((l) => l.id === 3)).toBe(false)
    // An answer taken is not also refused; an error without a numeric code is -32603.
    send(ask(4))
    const third = await asked(lines, 3)
    send({ jsonrpc: '2.0', id: third.id, error: { code: 'no', message: 'odd' } })
    await until(() => lines.some((l) => l.id === 4))
    expect(lines.find((l) => l.id === 4)).toMatchObject({ error: { code: -32603, message: 'The client answered odd' } })
    send(ask(5))
    const fourth = await asked(lines, 4)
    send({ jsonrpc: '2.0', id: fourth.id, result: { action: 'decline' } })
    await until(() => lines.some((l) => l.id === 5))
    await turns(10)
    expect(lines.filter((l) => l.id === fourth.id)).toEqual([fourth])
    await stdio.close()
  })

  it('a new initialize ends the old session\'s notifications: its subscriptions no longer tell, list changes come once', async () => {
    const { stdio, lines, send } = await initialized()
    send({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'test://watched-resource' } })
    await until(() => lines.some((l) => l.id === 2))
    send(init(3))
    await until(() => lines.some((l) => l.id === 3))
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'test_update_watched_resource', arguments: {} } })
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_trigger_prompt_change', arguments: {} } })
    await until(() => lines.some((l) => l.method === 'notifications/prompts/list_changed'))
    await turns(10)
    expect(lines.filter((l) => l.method?.startsWith('notifications/')).map((l) => l.method)).toEqual(['notifications/prompts/list_changed'])
    await stdio.close()
  })

  it('a handler that asks after its request was cancelled is refused at once: nothing is written', async () => {
    const asked = deferred<string>()
    const server = new McpServer({ name: 'late', version: '1.0.0' }).tool('late_ask', {}, async (_a, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      return ctx.elicit('k', { message: 'Too late?', requestedSchema: { type: 'object', properties: {} } }).then(() => 'answered', (e: Error) => void asked.resolve(e.message))
    })
    const { stdio, lines, send } = await harness(server, { maxMessageBytes: 65536 })
    send(init(1))
    await until(() => lines.some((l) => l.id === 1))
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'late_ask', arguments: {} } })
    await turns(5)
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })
    expect(await asked.promise).toBe('The request ended before the client answered')
    expect(lines.filter((l) => l.method === 'elicitation/create')).toEqual([])
    await stdio.close()
  })

  it('goes on without notifications when the runtime holds its most streams, and says so', async () => {
    const reported: unknown[] = []
    const { stdio, lines, send } = await harness(createEverythingServer(), { extensions: [tasks()], maxMessageBytes: 65536, listen: { maxStreams: 1 }, onError: (_e, c) => void reported.push(c.during) })
    send({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META_2026() } })
    await until(() => lines.some((l) => l.method === 'notifications/subscriptions/acknowledged'))
    send(init(1))
    await until(() => lines.some((l) => l.id === 1))
    expect(reported).toEqual(['stdio session'])
    send(ask(2))
    const question = await asked(lines, 1)
    send({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } })
    await until(() => lines.some((l) => l.id === 2))
    expect(lines.find((l) => l.id === 2)!.result.content[0].text).toBe('User response: action=decline, content={}')
    await stdio.close()
  })

  it('a new initialize ends the session before it: its questions fail, and what it set is gone', async () => {
    const { stdio, lines, send } = await initialized()
    send({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } })
    send(ask(3))
    await asked(lines, 1)
    send(init(4, {}))
    await until(() => lines.some((l) => l.id === 3))
    expect(lines.find((l) => l.id === 3)).toMatchObject({ error: { code: -32603, message: 'The session ended before the client answered' } })
    // The new session declared no elicitation, and set no level.
    send(ask(5))
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'test_tool_with_logging', arguments: {} } })
    await until(() => lines.some((l) => l.id === 5) && lines.some((l) => l.id === 6))
    expect(lines.find((l) => l.id === 5)).toMatchObject({ error: { code: -32021 } })
    expect(lines.filter((l) => l.method === 'notifications/message')).toEqual([])
    await stdio.close()
  })
})

describe('stdio line protocol', () => {
  const slow = () => {
    const seen = { aborted: false }
    const server = new McpServer({ name: 'stdio', version: '1.0.0' })
      .tool('wait', { description: 'waits to be cancelled' }, async (_a, ctx) => {
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }))
        seen.aborted = true
        return 'late'
      })
      .tool('quick', { description: 'answers' }, () => 'quick')
    return { server, seen }
  }
  const req = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_2026() } })

  it('notifications/cancelled cancels a request: the handler is aborted and nothing is answered', async () => {
    const { server, seen } = slow()
    const h = await harness(server)
    h.send(req(1, 'tools/call', { name: 'wait' }))
    h.send(req(2, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.length === 1)
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
    await until(() => seen.aborted)
    h.send(req(3, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.length === 2)
    expect(h.lines.map((l) => l.id)).toEqual([2, 3])
    await h.stdio.close()
  })

  it('listen: ack first, tagged notifications, client cancel stops them, server end sends notifications/cancelled', async () => {
    const { server } = slow()
    const h = await harness(server)
    h.send(req('sub-a', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
    h.send(req('sub-b', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
    await until(() => h.lines.length === 2)
    expect(h.lines.map((l) => l.method)).toEqual(['notifications/subscriptions/acknowledged', 'notifications/subscriptions/acknowledged'])
    await h.stdio.notify.toolsChanged()
    await until(() => h.lines.length === 4)
    expect(h.lines.slice(2).map((l) => l.params._meta['io.modelcontextprotocol/subscriptionId']).sort()).toEqual(['sub-a', 'sub-b'])
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-a' } })
    // Lines are handled in order: once the next request is answered, the cancellation has been handled.
    h.send(req(5, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.length === 5)
    await h.stdio.notify.toolsChanged()
    await until(() => h.lines.length === 6)
    expect(h.lines[5]!.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('sub-b')
    await h.stdio.close()
    expect(h.lines.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-b', reason: 'The server ended the subscription' } })
    for (const line of h.lines) expect(validateServerMessage('2026-07-28', line.id === 5 ? 'tools/call' : 'subscriptions/listen', line)).toEqual([])
  })

  it('answers garbage, oversized lines and reused ids with errors, and goes on', async () => {
    const { server } = slow()
    const h = await harness(server)
    h.send('not json')
    h.send('[1,2]')
    h.send(`{"pad":"${'x'.repeat(2000)}"}`)
    h.send(req(7, 'tools/call', { name: 'wait' }))
    h.send(req(7, 'tools/call', { name: 'quick' }))
    h.send({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} })
    h.send(req(9, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.length === 6)
    expect(h.lines.map((l) => [l.id, l.error?.code ?? 'ok'])).toEqual([
      [undefined, -32700], [undefined, -32600], [undefined, -32600], [7, -32600], [8, 'ok'], [9, 'ok'],
    ])
    expect(h.lines[0]!.error.message).toBe('Parse error: the line is not valid JSON')
    expect(h.lines[2]!.error.message).toBe('Message exceeds 1024 bytes')
    expect(h.lines[3]!.error.message).toBe('Request id 7 is already in use')
    await h.stdio.close()
  })

  it('frames lines in bytes: blank lines skipped, exactly the limit accepted, a line split anywhere joined', async () => {
    const h = await harness(new McpServer({ name: 'framing', version: '1.0.0' }).tool('quick', { description: 'q' }, () => 'quick'))
    const exactly = (id: number, bytes: number) => {
      const line = JSON.stringify(req(id, 'tools/call', { name: 'quick' }))
      return line + ' '.repeat(bytes - line.length)
    }
    h.input.write('\n   \n\t\n')
    h.input.write(`\n${exactly(1, 1024)}\n`)
    // 1024 bytes pending without their newline are not yet too many.
    h.input.write(exactly(2, 1024))
    h.input.write('\n')
    h.input.write(`${exactly(3, 1025)}\n`)
    const four = JSON.stringify(req(4, 'tools/call', { name: 'quick' }))
    h.input.write(four.slice(0, 10))
    h.input.write(four.slice(10, 40))
    h.input.write(`${four.slice(40)}\n`)
    await until(() => h.lines.length === 4)
    // The refusal is written as the line is read; answers come when their requests finish.
    const seen = h.lines.map((l) => `${l.id}: ${l.error?.message ?? l.result.content[0].text}`)
    expect(seen.sort()).toEqual(['1: quick', '2: quick', '4: quick', 'undefined: Message exceeds 1024 bytes'])
    await h.stdio.close()
  })

  it('an endless line is refused once, its rest dropped, and the next line served', async () => {
    const h = await harness(new McpServer({ name: 'framing', version: '1.0.0' }).tool('quick', { description: 'q' }, () => 'quick'))
    // Each chunk alone is over the limit: still one refusal for the whole line.
    h.input.write('x'.repeat(1100))
    h.input.write('x'.repeat(1100))
    h.input.write('x'.repeat(600))
    h.input.write(`xxx\n${JSON.stringify(req(5, 'tools/call', { name: 'quick' }))}\n`)
    await until(() => h.lines.length === 2)
    expect(h.lines.map((l) => [l.id, l.error?.message ?? l.result.content[0].text])).toEqual([[undefined, 'Message exceeds 1024 bytes'], [5, 'quick']])
    await h.stdio.close()
  })

  it('only notifications/cancelled cancels, with the client as the reason; after close nothing more is read', async () => {
    const reason = deferred<unknown>()
    const server = new McpServer({ name: 'cancel', version: '1.0.0' })
      .tool('wait', { description: 'waits to be cancelled' }, async (_a, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
        reason.resolve(ctx.signal.reason)
        return 'late'
      })
      .tool('quick', { description: 'answers' }, () => 'quick')
    const h = await harness(server)
    h.send(req(1, 'tools/call', { name: 'wait' }))
    h.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { requestId: 1, progressToken: 1, progress: 1 } })
    h.send(req(2, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.length === 1)
    expect(reason.settled).toBe(false)
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
    expect(await reason.promise).toEqual(new Error('cancelled by the client'))
    await h.stdio.close()
    h.send(req(3, 'tools/call', { name: 'quick' }))
    await turns()
    expect(h.lines.map((l) => l.id)).toEqual([2])
  })

  it('exits on stdin EOF after answering what it already read, and writes only protocol to stdout', async () => {
    const child = spawn(ENTRY.command, ENTRY.args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stdin.end([
      JSON.stringify(req(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
      JSON.stringify(req(2, 'tools/call', { name: 'test_logging_tool' })),
      JSON.stringify(req(3, 'tools/call', { name: 'test_trigger_tool_change' })),
      JSON.stringify({ ...req(4, 'tools/call', { name: 'test_tool_with_progress' }), params: { name: 'test_tool_with_progress', _meta: { ...META_2026(), progressToken: 'p' } } }),
      '',
    ].join('\n'))
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
    const messages = out.trim().split('\n').map((l) => JSON.parse(l))
    // Other requests' messages may come first; of the subscription's own, the acknowledgement does.
    const own = messages.filter((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 1)
    expect(own[0].method).toBe('notifications/subscriptions/acknowledged')
    expect(messages.filter((m) => 'id' in m).map((m) => m.id).sort()).toEqual([2, 3, 4])
    const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)
    expect(progress).toEqual([0, 50, 100])
    expect(messages.findIndex((m) => m.id === 4)).toBeGreaterThan(messages.findLastIndex((m) => m.method === 'notifications/progress'))
    expect(messages.some((m) => m.method === 'notifications/tools/list_changed')).toBe(true)
    expect(messages.at(-1)).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 1 } })
  })
})

describe('stdio end of input', () => {
  const req = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_2026() } })

  it('answers what it read (the last line even without a newline), ends subscriptions, then resolves closed', async () => {
    const gate = deferred()
    const server = new McpServer({ name: 'eof', version: '1.0.0' })
      .tool('gated', { description: 'waits for the test' }, async (_a, ctx) => {
        await gate.promise
        return String(ctx.env)
      })
    const h = await harness(server, { env: 'stdio-env' })
    h.send(req('sub', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
    await until(() => h.lines.length === 1)
    h.send(req(1, 'tools/call', { name: 'gated' }))
    h.input.end(JSON.stringify(req(2, 'tools/call', { name: 'gated' })))
    let closed = false
    void h.stdio.closed.then(() => (closed = true))
    await turns()
    // Still waiting for the requests it read: nothing ended yet.
    expect(closed).toBe(false)
    expect(h.lines).toHaveLength(1)
    gate.resolve()
    await h.stdio.closed
    expect(h.lines.slice(1, 3).map((l) => [l.id, l.result.content[0].text]).sort()).toEqual([[1, 'stdio-env'], [2, 'stdio-env']])
    expect(h.lines.slice(3)).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub', reason: 'The server ended the subscription' } }])
  })

  it('cancels what is still running when the grace period is over, and answers none of it', async () => {
    const seen = deferred<string>()
    const server = new McpServer({ name: 'eof', version: '1.0.0' })
      .tool('forever', { description: 'runs until cancelled' }, async (_a, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
        seen.resolve(String(ctx.signal.reason))
        return 'too late'
      })
    const h = await harness(server, { shutdownGraceMs: 20 })
    h.input.end(`${JSON.stringify(req(1, 'tools/call', { name: 'forever' }))}\n`)
    await h.stdio.closed
    expect(await seen.promise).toMatch(/stopping/)
    await turns()
    expect(h.lines).toEqual([])
  })

  it('stops when the client closes its end of the output', async () => {
    const server = new McpServer({ name: 'eof', version: '1.0.0' }).tool('quick', { description: 'q' }, () => 'q')
    const h = await harness(server)
    h.output.emit('error', new Error('EPIPE'))
    await h.stdio.closed
  })
})

describe('stdio child process', () => {
  const req = (id: number | string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) =>
    ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...META_2026({ elicitation: {} }), ...meta } } })

  it('writes nothing but valid protocol messages to stdout on every path: cancellations, errors, listen, EOF', async () => {
    const child = spawn(ENTRY.command, ENTRY.args, { stdio: ['pipe', 'pipe', 'pipe'] })
    const exited = once(child, 'exit')
    const raw: string[] = []
    let buffer = ''
    child.stdout.on('data', (c) => {
      buffer += c
      let i
      while ((i = buffer.indexOf('\n')) >= 0) {
        raw.push(buffer.slice(0, i))
        buffer = buffer.slice(i + 1)
      }
    })
    const parsed = () => raw.map((l) => JSON.parse(l) as Record<string, any>)
    const send = (m: unknown) => child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`)
    const cancel = (requestId: string | number) => send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } })
    const seen = (test: (m: Record<string, any>) => boolean) => until(() => raw.length > 0 && parsed().some(test))

    // A request cancelled while it runs.
    send(req('slow', 'tools/call', { name: 'test_tool_with_progress' }, { progressToken: 'p' }))
    await seen((m) => m.method === 'notifications/progress')
    cancel('slow')
    // A subscription the client cancels, after a change reached it.
    send(req('sub', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
    await seen((m) => m.method === 'notifications/subscriptions/acknowledged')
    send(req('change', 'tools/call', { name: 'test_trigger_tool_change' }))
    await seen((m) => m.method === 'notifications/tools/list_changed')
    cancel('sub')
    // Cancelling what is not running, errors of every kind, an input request, a legacy handshake.
    cancel('nothing-by-this-id')
    send('{"not json')
    send({ jsonrpc: '2.0', id: 'resp', result: {} })
    send(req('unknown', 'nope/nothing'))
    send(req('bad-args', 'tools/call', { name: 'add', arguments: { a: 'x' } }))
    send(req('ask', 'tools/call', { name: 'test_input_required_result_elicitation' }))
    send(req('throws', 'prompts/get', { name: 'no-such-prompt' }))
    send({ jsonrpc: '2.0', id: 'legacy', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
    // A subscription still open at EOF, ended by the server.
    send(req('open-sub', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
    await seen((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'open-sub')
    child.stdin.end()
    const [code] = await exited
    expect(code).toBe(0)
    expect(buffer).toBe('')

    const messages = parsed()
    const answered = messages.filter((m) => 'id' in m).map((m) => m.id)
    expect(answered.sort()).toEqual(['ask', 'bad-args', 'change', 'legacy', 'resp', 'throws', 'unknown'])
    expect(messages.filter((m) => 'error' in m && !('id' in m)).map((m) => m.error.code)).toEqual([-32700])
    expect(messages.filter((m) => m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === 'sub').map((m) => m.method)).toEqual([
      'notifications/subscriptions/acknowledged', 'notifications/tools/list_changed',
    ])
    expect(messages.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'open-sub', reason: 'The server ended the subscription' } })
    const methodOf: Record<string, string> = { resp: 'tools/list', ask: 'tools/call', 'bad-args': 'tools/call', change: 'tools/call', throws: 'prompts/get', unknown: 'nope/nothing', legacy: 'initialize' }
    for (const m of messages) {
      const version = m.id === 'legacy' ? 'legacy' : '2026-07-28'
      expect(validateServerMessage(version, methodOf[m.id] ?? 'subscriptions/listen', m)).toEqual([])
    }
  })
})

describe('stdio listen setup', () => {
  const gated = () => {
    const backplane = gatedBackplane()
    const server = new McpServer({ name: 'stdio-setup', version: '1.0.0' })
      .tool('quick', { description: 'answers' }, () => 'quick')
      .resource('test://a', { name: 'a' }, () => 'a')
    return { server, backplane }
  }
  const req = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_2026() } })
  const listen = (id: string) => req(id, 'subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } })
  /** Lines are handled in order: once a request sent after the listen is answered, what the listen wrote is out. */
  const barrier = async (h: Awaited<ReturnType<typeof harness>>, id: number) => {
    h.send(req(id, 'tools/call', { name: 'quick' }))
    await until(() => h.lines.some((l) => l.id === id))
  }
  const subscriptionOf = (line: Record<string, any>) => line.params?._meta?.['io.modelcontextprotocol/subscriptionId']

  it('acknowledges only once the subscription is live', async () => {
    const { server, backplane } = gated()
    const h = await harness(server, { backplane })
    h.send(listen('l-1'))
    await backplane.subscribing()
    await barrier(h, 1)
    expect(h.lines.filter((l) => subscriptionOf(l) === 'l-1')).toEqual([])
    backplane.release()
    await until(() => h.lines.some((l) => subscriptionOf(l) === 'l-1'))
    expect(h.lines.find((l) => subscriptionOf(l) === 'l-1')!.method).toBe('notifications/subscriptions/acknowledged')
    await h.stdio.close()
  })

  it('holds back changes published during setup until after the acknowledgement, and loses none', async () => {
    const { server, backplane } = gated()
    const h = await harness(server, { backplane })
    h.send(listen('l-2'))
    await backplane.subscribing()
    await h.stdio.notify.resourceUpdated('test://a')
    await h.stdio.notify.toolsChanged()
    backplane.release()
    await until(() => h.lines.filter((l) => subscriptionOf(l) === 'l-2').length === 3)
    expect(h.lines.filter((l) => subscriptionOf(l) === 'l-2').map((l) => l.params.uri ?? l.method)).toEqual([
      'notifications/subscriptions/acknowledged', 'test://a', 'notifications/tools/list_changed',
    ])
    await h.stdio.close()
  })

  it('a listen cancelled while it is being set up is freed and never acknowledged', async () => {
    const { server, backplane } = gated()
    const h = await harness(server, { backplane })
    h.send(listen('l-3'))
    await backplane.subscribing()
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l-3' } })
    await barrier(h, 1)
    backplane.release()
    await until(() => backplane.open === 0)
    await h.stdio.notify.toolsChanged()
    await barrier(h, 2)
    expect(h.lines.filter((l) => subscriptionOf(l) === 'l-3')).toEqual([])
    expect(backplane.delivered).toBe(0)
    // The id is free again.
    h.send(req('l-3', 'tools/call', { name: 'quick' }))
    await until(() => h.lines.some((l) => l.id === 'l-3'))
    expect(h.lines.find((l) => l.id === 'l-3')).toMatchObject({ result: { content: [{ type: 'text', text: 'quick' }] } })
    await h.stdio.close()
  })

  it('a listen still being set up when the server stops is ended and freed', async () => {
    const { server, backplane } = gated()
    const h = await harness(server, { backplane })
    h.send(listen('l-4'))
    await backplane.subscribing()
    const closing = h.stdio.close()
    backplane.release()
    await closing
    await until(() => backplane.open === 0)
    const own = h.lines.filter((l) => subscriptionOf(l) === 'l-4' || l.params?.requestId === 'l-4')
    // Whatever the client saw of it, the last word is that the server ended it.
    expect(own.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l-4', reason: 'The server ended the subscription' } })
  })
})
