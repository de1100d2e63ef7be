/**
 * A Worker that lacks a binding says what it loses, once per isolate: without MCP_HUB listen hears only of
 * its own isolate's changes; without MCP_TASKS, tasks (and resumable requests, and 2025 sessions) live in the isolate's memory.
 * Another isolate is a fresh instance of the adapter's modules (vi.resetModules), as in request-state.test.ts.
 */
import { createExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { mcpRequest } from './sse.js'

type Modules = typeof import('../../adapters/cloudflare/index.js') & typeof import('../../src/index.js')

async function isolate(): Promise<Modules> {
  vi.resetModules()
  return { ...await import('../../src/index.js'), ...await import('../../adapters/cloudflare/index.js') }
}

// Made before anything runs: a reset reloads the Worker's module (see request-state.test.ts).
let modules: Modules[]
beforeAll(async () => {
  modules = [await isolate(), await isolate(), await isolate(), await isolate(), await isolate()]
})

const SECRET = { MCP_REQUEST_STATE_SECRET: 'degraded-test-secret-0123456789abcdef' }
const plain = (m: Modules) => new m.McpServer({ name: 'degraded', version: '1.0.0' }).tool('plain', { description: 'answers' }, () => 'plain')
const taskServer = (m: Modules) => plain(m).tool('slow', { description: 'runs as a task', task: 'optional' }, () => 'done')

// Watched, not replaced: the warnings still go to workerd's console.
let watched: { mock: { calls: unknown[][] }; mockRestore(): void } | undefined
const spy = () => void (watched = vi.spyOn(console, 'warn'))
const warnings = () => watched!.mock.calls.map((args) => args.join(' '))
afterEach(() => void watched?.mockRestore())

/** One request through `worker` with these bindings, as the runtime makes it. */
async function listTools(worker: { fetch(r: Request, e: Record<string, unknown>, c: ExecutionContext): Promise<Response> }, bindings: Record<string, unknown>) {
  const res = await worker.fetch(mcpRequest('tools/list', {}), bindings, createExecutionContext())
  expect(res.status).toBe(200)
}

describe('a Worker short of a binding', () => {
  it('without MCP_HUB warns once per isolate that listen stays inside the isolate, and how to bind the hub', async () => {
    spy()
    const [a, b] = modules as [Modules, Modules]
    const worker = a.createWorker(plain(a))
    // Two env objects (two handlers) and a second Worker of the same isolate: still one warning.
    await listTools(worker, { ...SECRET })
    await listTools(worker, { ...SECRET })
    await listTools(a.createWorker(plain(a)), { ...SECRET })
    expect(warnings()).toEqual([
      'mcp-edge: no MCP_HUB binding: listen streams hear only of changes made in their own isolate (a tool call or notify(env) '
      + 'in another isolate reaches none of them). Bind the McpHub Durable Object as MCP_HUB and export { McpHub } from \'mcp-edge/cloudflare\' (README, Deploy to Cloudflare).',
    ])
    // Another isolate says it again, under the binding name it was given.
    await listTools(b.createWorker(plain(b), { hubBinding: 'HUBS' }), { ...SECRET })
    expect(warnings()).toHaveLength(2)
    expect(warnings()[1]).toMatch(/^mcp-edge: no HUBS binding: /)
  })

  it('without MCP_TASKS, for a server that has task tools, warns once that tasks live in the isolate\'s memory', async () => {
    spy()
    const m = modules[2]!
    const worker = m.createWorker(taskServer(m), { extensions: [m.tasks(), m.resumable()] })
    await listTools(worker, { ...SECRET, MCP_HUB: env.MCP_HUB })
    await listTools(worker, { ...SECRET, MCP_HUB: env.MCP_HUB })
    expect(warnings()).toEqual([
      'mcp-edge: no MCP_TASKS binding: tasks and resumable requests live in this isolate\'s memory, so a request about one '
      + 'that reaches another isolate does not find it, and it ends with the isolate. Bind taskObject(worker) as MCP_TASKS (README, Deploy to Cloudflare).',
    ])
  })

  it('without MCP_TASKS, given sessions(), warns once that they live in the isolate\'s memory', async () => {
    spy()
    const m = modules[4]!
    const worker = m.createWorker(plain(m), { sessions: m.sessions() })
    await listTools(worker, { ...SECRET, MCP_HUB: env.MCP_HUB })
    await listTools(worker, { ...SECRET, MCP_HUB: env.MCP_HUB })
    expect(warnings()).toEqual([
      'mcp-edge: no MCP_TASKS binding: 2025 sessions live in this isolate\'s memory, so a request about one '
      + 'that reaches another isolate does not find it, and it ends with the isolate. Bind taskObject(worker) as MCP_TASKS (README, Deploy to Cloudflare).',
    ])
  })

  it('without a requestState secret and without the hub, warns once that input requests need one isolate to answer every round', async () => {
    spy()
    const m = modules[3]!
    await listTools(m.createWorker(plain(m), { secretBinding: 'STATE_KEY', hubBinding: 'HUBS' }), {})
    await listTools(m.createWorker(plain(m)), {})
    await listTools(m.createWorker(plain(m)), {})
    expect(warnings().filter((w) => !w.includes(' binding: '))).toEqual([
      'mcp-edge: no STATE_KEY and no HUBS: input requests work only while one isolate answers every round',
      'mcp-edge: no MCP_REQUEST_STATE_SECRET and no MCP_HUB: input requests work only while one isolate answers every round',
    ])
  })

  it('says nothing when every binding is there, or when no tool runs as a task', async () => {
    spy()
    const m = await isolate()
    await listTools(m.createWorker(taskServer(m), { extensions: [m.tasks(), m.resumable()] }), { ...SECRET, MCP_HUB: env.MCP_HUB, MCP_TASKS: env.MCP_TASKS })
    await listTools(m.createWorker(plain(m)), { ...SECRET, MCP_HUB: env.MCP_HUB })
    // A store of one's own is a choice, not a missing binding.
    await listTools(m.createWorker(taskServer(m), { extensions: [m.tasks({ store: m.memoryTaskStore() })] }), { ...SECRET, MCP_HUB: env.MCP_HUB })
    expect(warnings()).toEqual([])
  })
})
