/**
 * The Lambda adapter under the real runtime client (aws-lambda-ric with its native part), one environment
 * so that every request lands on the same process: each fault gets its documented answer, and the process
 * neither crashes nor is killed at the timeout, so the next request is served warm.
 */
import { once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runtimeClient, spawnRuntime } from '../../adapters/lambda/local/runtime.js'
import { rawEvent, startFunction, type LocalFunction } from '../helpers/lambda.js'
import { pollElsewhere, runtimeApiOf } from '../helpers/runtime-poll.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

const TIMEOUT_MS = 3000
let fn: LocalFunction
let processes: string

const call = (method: string, params: Record<string, unknown>) => rpc(fetch, method, { ...params, _meta: META_2026() }, { url: fn.url })

/** The next request is answered by the same process, started once: nothing crashed, nothing timed out. */
async function stillWarm() {
  const { status, body } = await call('tools/call', { name: 'test_simple_text', arguments: {} })
  expect(status).toBe(200)
  expect(body.result.content[0].text).toContain('simple text')
  expect(fn.processes()).toBe(processes)
}

beforeAll(async () => {
  fn = await startFunction('test/lambda/fixture.ts', 'fixture', { instances: 1, maxInstances: 1, timeoutMs: TIMEOUT_MS })
  await call('server/discover', {})
  processes = fn.processes()
  expect(processes).toMatch(/^\d+\/1$/)
}, 60_000)
afterAll(() => fn?.close())

describe('Lambda under the real runtime client', () => {
  it('a tool that throws: a tool error with an error id, the message kept from the client', async () => {
    const { status, body } = await call('tools/call', { name: 'throws', arguments: {} })
    expect(status).toBe(200)
    expect(body.result.isError).toBe(true)
    expect(body.result.content[0].text).toMatch(/error id/)
    expect(JSON.stringify(body)).not.toContain('kaboom')
    await stillWarm()
  })

  it('an event that is not an HTTP request: the invoker gets the function error', async () => {
    const res = await rawEvent(fn.url, { source: 'aws.events', detail: {} })
    expect(res.status).toBe(502)
    await stillWarm()
  })

  it('a body over the limit: 413, counted in decoded bytes, whatever the base64 length or Content-Length say', async () => {
    const message = (pad: number) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: META_2026() } }) + ' '.repeat(pad)
    const over = await fetch(fn.url, { method: 'POST', headers: modernHeaders('server/discover'), body: message(3000) })
    expect(over.status).toBe(413)
    expect(await over.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: 'Request body exceeds 2048 bytes' } })

    // An API Gateway REST event with a binary body: base64 makes 2000 bytes 2668 characters, still within.
    const rest = (body: string, headers: Record<string, string>) => rawEvent(fn.url, {
      httpMethod: 'POST', path: '/mcp', headers: { ...modernHeaders('server/discover'), host: 'api.example', ...headers },
      body: Buffer.from(body).toString('base64'), isBase64Encoded: true, requestContext: { domainName: 'api.example' },
    })
    const padded = message(0)
    const within = await rest(message(2000 - padded.length), {})
    expect(within.status).toBe(200)
    const answer = await within.json()
    expect(answer).toMatchObject({ id: 7, result: { supportedVersions: expect.arrayContaining(['2026-07-28']) } })
    expect(validateServerMessage('2026-07-28', 'server/discover', answer)).toEqual([])
    const lying = await rest(message(2100 - padded.length), { 'content-length': '10' })
    expect(lying.status).toBe(413)
    await stillWarm()
  })

  it('a client that goes away: the function runs on until its abort signal, then serves the next request', async () => {
    const abort = new AbortController()
    const res = await fetch(fn.url, {
      method: 'POST', headers: modernHeaders('tools/call', { name: 'until_aborted' }), signal: abort.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'until_aborted', arguments: {}, _meta: META_2026({}, { progressToken: 'p' }) } }),
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const first = await sseMessages(res.body!).next()
    expect(first.value).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p', progress: 0 } })
    abort.abort()
    // One environment: this waits for it, and it is free again only once the tool saw its signal abort.
    await stillWarm()
    const { body } = await call('tools/call', { name: 'last_abort', arguments: {} })
    expect(body.result.content[0].text).toBe('The function reached its deadline')
  })

  it('an answer without a body (a notification): the status still goes out through the prelude', async () => {
    const res = await fetch(fn.url, { method: 'POST', headers: modernHeaders('notifications/initialized'), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
    await stillWarm()
  })

  it('a handler that never answers: 504 with a JSON-RPC error before the timeout, the process kept', async () => {
    const { status, body } = await call('tools/call', { name: 'never_answers', arguments: {} })
    expect(status).toBe(504)
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: expect.stringMatching(/ran out of time/) } })
    await stillWarm()
  })

  it('a listen that reaches the deadline ends gracefully with its result, before the timeout', async () => {
    const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
    const res = await fetch(fn.url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'subscriptions/listen', params }) })
    const messages: Record<string, unknown>[] = []
    for await (const m of sseMessages(res.body!)) messages.push(m)
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/subscriptions/acknowledged', 'result'])
    expect(messages[1]).toMatchObject({ id: 5, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 5 } } })
    for (const m of messages) expect(validateServerMessage('2026-07-28', 'subscriptions/listen', m)).toEqual([])
    await stillWarm()
  })
})

describe('the Runtime API of a runtime process, under the real runtime client', () => {
  it('refuses another local process (and a rebound Host): the call, bearer token and all, reaches the runtime alone', async () => {
    const address = runtimeApiOf(fn.environments[0]!.pid!)
    const polls = [pollElsewhere(address), pollElsewhere(address, `rebound.example:${address.split(':')[1]}`)]
    try {
      await Promise.all(polls.map((p) => p.sent))
      const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_simple_text', arguments: {}, _meta: META_2026() } }
      const headers = { ...modernHeaders('tools/call', { name: 'test_simple_text' }), authorization: 'Bearer local-secret' }
      const called = fetch(fn.url, { method: 'POST', headers, body: JSON.stringify(message) })
      // Unrefused, a poll waiting here took the next invocation: the event with its Authorization header.
      for (const poll of polls) expect(await poll.answer).toEqual({ status: 403, body: '' })
      const res = await called
      expect(res.status).toBe(200)
      expect((await res.json()).result.content[0].text).toContain('simple text')
    } finally {
      for (const poll of polls) poll.kill()
    }
    await stillWarm()
  })

  it('aws-lambda-ric takes its Runtime API as host:port alone: a path there stops it at start', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ric-path-'))
    writeFileSync(join(root, 'index.mjs'), 'export const handler = async () => "ok"\n')
    const child = spawnRuntime(runtimeClient(root), root, 'index.handler', '127.0.0.1:9/unguessable')
    let output = ''
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.stdout!.resume()
    await once(child, 'exit')
    expect(output).toContain('Invalid hostnamePort: 127.0.0.1:9/unguessable')
  })
})

/** Another handler of the fixture bundle, in one environment of its own. */
const alone = (name: string, handler: string) => startFunction('test/lambda/fixture.ts', name, { handler, instances: 1, maxInstances: 1, timeoutMs: TIMEOUT_MS })

describe('a body stream that fails midway, under the real runtime client', () => {
  let broken: LocalFunction
  beforeAll(async () => {
    broken = await alone('fixture-broken', 'fixture.brokenBody')
  }, 60_000)
  afterAll(() => broken?.close())

  it('ends the response after what was written; the process serves the next invocation', async () => {
    const before = broken.environments.map((e) => `${e.pid}/${e.starts}`).join()
    for (let i = 0; i < 2; i++) {
      const res = await fetch(broken.url, { method: 'POST', body: '{}' })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('first part\n')
    }
    expect(broken.environments.map((e) => `${e.pid}/${e.starts}`).join()).toBe(before)
  })
})

describe('a handler made without the awslambda global, under the real runtime client', () => {
  let bare: LocalFunction
  beforeAll(async () => {
    bare = await alone('fixture-bare', 'fixture.withoutGlobal')
  }, 60_000)
  afterAll(() => bare?.close())

  it('is called as a streaming handler all the same: progress, then the result, on one stream', async () => {
    const params = { name: 'test_tool_with_progress', arguments: {}, _meta: META_2026({}, { progressToken: 'p' }) }
    const res = await fetch(bare.url, { method: 'POST', headers: modernHeaders('tools/call', { name: params.name }), body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params }) })
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream'])
    const messages: Record<string, unknown>[] = []
    for await (const m of sseMessages(res.body!)) messages.push(m)
    expect(messages.map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'notifications/progress', 'notifications/progress', 'result'])
  })

  it('without a shared backplane, refuses listen with why (-32600), having warned once as it loaded', async () => {
    const params = { notifications: { toolsListChanged: true }, _meta: META_2026() }
    const res = await fetch(bare.url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'subscriptions/listen', params }) })
    const body = await res.json()
    expect(validateServerMessage('2026-07-28', 'subscriptions/listen', body)).toEqual([])
    expect(body).toMatchObject({ id: 6, error: { code: -32600, message: expect.stringMatching(/^subscriptions\/listen needs a shared backplane on Lambda: .*redisBackplane from mcp-edge\/redis/) } })
    const warnings = bare.logs.join('').split('\n').filter((l) => l.includes('mcp-edge: subscriptions/listen needs a shared backplane'))
    expect(warnings).toHaveLength(1)
    await fetch(bare.url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params }) }).then((r) => r.json())
    expect(bare.logs.join('').split('\n').filter((l) => l.includes('mcp-edge: subscriptions/listen needs a shared backplane'))).toHaveLength(1)
  })
})
