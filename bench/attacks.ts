/**
 * Two findings of the attack review (issue 45), replayed with figures: ordinary tools/calls answered while
 * four connections trickle bodies that declare 4 MB each (the whole body budget), and the series of the
 * duration histogram after requests naming made-up methods, tools, prompts and versions.
 *   node --import tsx bench/attacks.ts [--seconds 10] [--names 2500]
 */
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { parseArgs } from 'node:util'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import { serve } from '../adapters/node/index.js'
import { McpServer } from '../src/index.js'
import { openTelemetry } from '../src/otel/index.js'
import { machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, names: { type: 'string', default: '2500' } } })
const SECONDS = Number(values.seconds)
const NAMES = Number(values.names)

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }
const headers = (method: string, name?: string) => ({
  'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}),
})
const post = (url: string, id: number, method: string, params: Record<string, unknown>, name?: string) =>
  fetch(url, { method: 'POST', headers: headers(method, name), body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) })

class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const server = new McpServer({ name: 'attacked', version: '1.0.0' })
  .tool('add', { description: 'Adds', input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) => String(Number(args.a) + Number(args.b)))
  .prompt('greet', { description: 'Greets' }, () => 'hello')

/** Ordinary calls answered, by status, while slow bodies are trickled in, reconnecting when cut. */
async function slowBodies(): Promise<Record<string, number>> {
  const running = await serve(server, { port: 0, handleSignals: false, log: false, shutdownGraceMs: 100 })
  const { port } = new URL(running.url)
  let attacking = true
  const attacker = async () => {
    while (attacking) {
      const socket: Socket = connect(Number(port), '127.0.0.1')
      socket.on('error', () => {})
      await once(socket, 'connect').catch(() => {})
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n{`)
      const drip = setInterval(() => socket.write(' '), 1000)
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve())
        const stop = setInterval(() => !attacking && (clearInterval(stop), socket.destroy()), 100)
      })
      clearInterval(drip)
    }
  }
  const attackers = Array.from({ length: 4 }, attacker)
  await new Promise((r) => setTimeout(r, 500))
  const statuses: Record<string, number> = {}
  const until = Date.now() + SECONDS * 1000
  for (let id = 0; Date.now() < until; id++) {
    const res = await post(running.url, id, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: META }, 'add')
    await res.arrayBuffer()
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
    await new Promise((r) => setTimeout(r, 100))
  }
  attacking = false
  await Promise.all(attackers)
  await running.close()
  return statuses
}

/** Data points of the duration histogram after `NAMES` requests naming made-up things (a fifth each, and known ones). */
async function series(): Promise<number> {
  const reader = new OnDemandReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  const running = await serve(server, { port: 0, handleSignals: false, log: false, shutdownGraceMs: 100, telemetry: openTelemetry({ meterProvider }) })
  for (let i = 0; i < NAMES; i++) {
    const made = `made-up-${i}`
    const [method, params, name] = [
      ['tools/call', { name: made, arguments: {}, _meta: META }, made],
      ['prompts/get', { name: made, _meta: META }, made],
      [made, { _meta: META }, undefined],
      ['tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': made } }, undefined],
      ['tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: META }, 'add'],
    ][i % 5] as [string, Record<string, unknown>, string | undefined]
    await (await post(running.url, i, method, params, name)).arrayBuffer()
  }
  const { resourceMetrics } = await reader.collect()
  const duration = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration')
  await running.close()
  await meterProvider.shutdown()
  return duration?.dataPoints.length ?? 0
}

const answered = await slowBodies()
const points = await series()
const total = Object.values(answered).reduce((a, b) => a + b, 0)
const lines = [
  `Two findings of the attack review replayed (\`node --import tsx bench/attacks.ts --seconds ${SECONDS} --names ${NAMES}\`), ${machine()}.`,
  '',
  '| attack | figure |',
  '|---|---|',
  `| 4 connections declare 4 MB bodies (the whole 16 MB budget) and send a byte a second, reconnecting when cut; an ordinary tools/call every 100 ms for ${SECONDS} s | ${answered['200'] ?? 0} of ${total} answered 200 (${Object.entries(answered).map(([s, n]) => `${s}: ${n}`).join(', ')}) |`,
  `| ${NAMES} requests, four in five naming a made-up method, tool, prompt or version | ${points} series of mcp.server.operation.duration |`,
]
console.log(lines.join('\n'))
if (process.env.BENCH_WRITE !== '0') writeSection('Attack replays', lines.join('\n'))
