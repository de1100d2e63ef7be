/**
 * Metric attributes and span names from what the server knows (issue 45, finding 2): made-up methods, tool
 * and prompt names and protocol versions are all `_OTHER`, so they cannot grow the duration histogram's
 * series (each kept for the process's life); and no attribute or span name holds more than 1,024
 * characters of whatever the client sent. Over real HTTP, with the OpenTelemetry SDK's in-memory exporters.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { McpServer } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import type { RunningServer } from '../../adapters/node/index.js'
import { otelSdk, type OtelSdk } from '../helpers/otel.js'
import { META_2026, modernHeaders, startEverything } from '../helpers/server.js'

const definition = () => new McpServer({ name: 'labels', version: '1.0.0' })
  .tool('echo', { description: 'Echoes' }, () => 'echo')
  .prompt('greet', { description: 'Greets' }, () => 'hello')

let sdk: OtelSdk
let running: RunningServer | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
  await sdk.shutdown()
})

async function start(): Promise<RunningServer> {
  sdk = otelSdk()
  running = await startEverything({ telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }), shutdownGraceMs: 100 }, definition())
  return running
}

/** A request with the headers a modern client sends, naming whatever it names (`bare`: none of the Mcp-* ones). */
function send(url: string, id: string | number, method: string, params: Record<string, unknown>, bare = false): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: bare ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : modernHeaders(method, params),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  }).then(async (res) => (await res.arrayBuffer(), res))
}

describe('metric attributes', () => {
  it('2,500 requests with made-up methods, tools, prompts and versions add no series beyond the _OTHER ones', async () => {
    const { url } = await start()
    for (let i = 0; i < 2500; i++) {
      const made = `made-up-${i}`
      const [method, params] = [
        ['tools/call', { name: made, arguments: {}, _meta: META_2026() }],
        ['prompts/get', { name: made, _meta: META_2026() }],
        [made, { _meta: META_2026() }],
        ['tools/list', { _meta: { ...META_2026(), 'io.modelcontextprotocol/protocolVersion': made } }],
        ['tools/call', { name: 'echo', arguments: {}, _meta: META_2026() }],
      ][i % 5] as [string, Record<string, unknown>]
      await send(url, i, method, params)
    }
    const points = await sdk.histogram('mcp.server.operation.duration')
    const valuesOf = (key: string) => new Set(points.map((p) => p.attributes[key]).filter((v) => v !== undefined))
    expect(valuesOf('mcp.method.name')).toEqual(new Set(['tools/call', 'prompts/get', 'tools/list', '_OTHER']))
    expect(valuesOf('gen_ai.tool.name')).toEqual(new Set(['echo', '_OTHER']))
    expect(valuesOf('gen_ai.prompt.name')).toEqual(new Set(['_OTHER']))
    expect(valuesOf('mcp.protocol.version')).toEqual(new Set(['2026-07-28', '_OTHER']))
    expect(points).toHaveLength(5)
    expect(points.reduce((n, p) => n + p.value.count, 0)).toBe(2500)
    const spanNames = new Set(sdk.spans().map((s) => s.name))
    expect(spanNames).toEqual(new Set(['tools/call _OTHER', 'prompts/get _OTHER', '_OTHER', 'tools/list', 'tools/call echo']))
  })

  it('a registered tool and prompt keep their names', async () => {
    const { url } = await start()
    await send(url, 1, 'tools/call', { name: 'echo', arguments: {}, _meta: META_2026() })
    await send(url, 2, 'prompts/get', { name: 'greet', _meta: META_2026() })
    expect(sdk.spans().map((s) => [s.name, s.attributes['gen_ai.tool.name'] ?? s.attributes['gen_ai.prompt.name']])).toEqual([
      ['tools/call echo', 'echo'], ['prompts/get greet', 'greet'],
    ])
  })
})

describe('attribute and span name lengths', () => {
  it('a megabyte of method, id, URI or name is cut to 1,024 characters in spans; the metrics never see it', async () => {
    const { url } = await start()
    const huge = 'x'.repeat(1024 * 1024)
    // A megabyte does not fit in a header: these name it in the body alone (and are refused for the missing headers).
    await send(url, huge, huge, { _meta: META_2026() }, true)
    await send(url, 2, 'resources/read', { uri: `file:///${huge}`, _meta: META_2026() }, true)
    await send(url, 3, 'tools/call', { name: huge, arguments: {}, _meta: META_2026() }, true)
    const spans = sdk.spans()
    expect(spans).toHaveLength(3)
    for (const span of spans) {
      expect(span.name.length).toBeLessThanOrEqual(1024)
      for (const value of Object.values(span.attributes)) expect(String(value).length).toBeLessThanOrEqual(1024)
    }
    const id = spans[0]!.attributes['jsonrpc.request.id'] as string
    expect([id.length, id.endsWith('…'), id.startsWith('xxx')]).toEqual([1024, true, true])
    expect((spans[1]!.attributes['mcp.resource.uri'] as string).length).toBe(1024)
    expect(spans[2]!.name).toBe('tools/call _OTHER')
    const points = await sdk.histogram('mcp.server.operation.duration')
    for (const p of points) for (const value of Object.values(p.attributes)) expect(String(value).length).toBeLessThan(64)
  })

  it('captured arguments and results are cut to 16,384 characters', async () => {
    sdk = otelSdk()
    const big = 'y'.repeat(100_000)
    const server = new McpServer({ name: 'content', version: '1' }).tool('echo', { description: 'Echoes' }, (args) => JSON.stringify(args))
    running = await startEverything({ telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, captureContent: true }), shutdownGraceMs: 100 }, server)
    await send(running.url, 1, 'tools/call', { name: 'echo', arguments: { big }, _meta: META_2026() })
    const { attributes } = sdk.spans()[0]!
    expect((attributes['gen_ai.tool.call.arguments'] as string).length).toBe(16_384)
    expect((attributes['gen_ai.tool.call.result'] as string).length).toBe(16_384)
  })
})
