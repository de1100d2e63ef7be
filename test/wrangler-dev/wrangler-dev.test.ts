/**
 * The everything Worker under `wrangler dev` (npm run dev): the conformance suite (its tasks scenarios with
 * every task in an McpTask Durable Object), the SDK v2 client with listen(), and progress that streams as it
 * happens. This is the real CLI, workerd, the hub and the task DOs.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startWranglerDev } from '../../scripts/wrangler-dev.js'
import { until } from '../helpers/async.js'
import { LISTEN_CHECKS, problems, REQUIRED, runConformance, sessionProblems, statuses, summary } from '../helpers/conformance.js'
import { draftWireChecks } from '../helpers/draft-checks.js'
import { resumableChecks } from '../helpers/resumable-checks.js'

let dev: Awaited<ReturnType<typeof startWranglerDev>>
let port: number

beforeAll(async () => {
  // No MCP_REQUEST_STATE_SECRET, as `npm run deploy` ships: the input rounds use the key kept in McpHub.
  // Durable Object state of its own: what earlier runs kept (sessions, tasks, each client's count) is not this run's.
  dev = await startWranglerDev([], {}, mkdtempSync(join(tmpdir(), 'mcp-edge-wrangler-')))
  port = dev.port
}, 90_000)

afterAll(() => dev?.stop())

async function client() {
  const c = new Client({ name: 'wrangler-dev-test', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: { elicitation: { form: {} } },
  })
  c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Workers' } }))
  await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  return c
}

describe('wrangler dev', () => {
  it('passes the conformance requirement set, listen checks and the tasks scenarios included', async () => {
    const { output, results } = await runConformance(`http://localhost:${port}/mcp`, ['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, REQUIRED)).toEqual([])
    expect(statuses(results, 'server-stateless', LISTEN_CHECKS)).toEqual(LISTEN_CHECKS.map((id) => [id, 'SUCCESS']))
    // The tasks extension's scenarios come with the requirement set (as extension scenarios, which REQUIRED
    // does not list; --suite all has none in this CLI), and here every task lives and runs in an McpTask
    // Durable Object: none may fail or warn.
    const tasks = [...results.keys()].filter((s) => s.startsWith('tasks-'))
    expect(tasks.length).toBeGreaterThanOrEqual(10)
    expect(problems(results, tasks, ['FAILURE', 'WARNING'])).toEqual([])
  }, 240_000)

  it('passes the 2025-11-25 requirement set: sessions in task Durable Objects, answers and updates through the hub', async () => {
    const { output, results } = await runConformance(`http://localhost:${port}/mcp`, ['--requirements', '2025-11-25'])
    console.log(summary(output))
    expect(sessionProblems(results)).toEqual([])
  }, 240_000)

  it('serves the SDK v2 client: calls, MRTR, and progress spread over time', async () => {
    const c = await client()
    expect((await c.discover()).supportedVersions).toContain('2026-07-28')
    expect((await c.callTool({ name: 'add', arguments: { a: 40, b: 2 } })).structuredContent).toEqual({ sum: 42 })
    expect((await c.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).content).toEqual([{ type: 'text', text: 'Hello, Workers!' }])
    const stamps: number[] = []
    await c.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: () => void stamps.push(Date.now()) })
    // The tool waits 50 ms between reports: they must arrive as they happen, not in one burst with the result.
    // (The client drops a report that lands together with the result, so only the first two are certain.)
    // A clock, not a gate: the tool runs in workerd, where nothing of this process can hold it.
    await until(() => stamps.length >= 2)
    expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(20) // 50 ms in the tool; a burst would be ~0
    await c.close()
  })

  it('delivers list changes to the SDK client listen() through the hub', async () => {
    const listener = await client()
    const actor = await client()
    const seen: string[] = []
    listener.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'))
    listener.setNotificationHandler('notifications/resources/updated', (n) => void seen.push(n.params.uri))
    const subscription = await listener.listen({ toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] })
    await actor.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await actor.callTool({ name: 'test_update_watched_resource', arguments: {} })
    await until(() => seen.length === 2)
    expect(seen.sort()).toEqual(['test://watched-resource', 'tools'])
    await subscription.close()
    await listener.close()
    await actor.close()
  })
})

// The call runs on in its McpTask object after the client leaves; the resume reads it there.
describe('wrangler dev: resumable requests', () => {
  resumableChecks(() => [`http://127.0.0.1:${port}/mcp`, `http://127.0.0.1:${port}/mcp`])
})

describe('wrangler dev: DRAFT-2026-v1 clients', () => {
  draftWireChecks(() => `http://127.0.0.1:${port}/mcp`)
})
