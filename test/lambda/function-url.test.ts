/**
 * template.yaml's function (examples/everything) built as `sam build` builds it, as `npm run start:lambda`
 * runs it: real runtime client processes behind the local function URL, Redis shared between them. What a client of a deployed function sees: the
 * conformance requirement set, and the SDK v2 client with progress, input requests and listen.
 */
import { randomBytes } from 'node:crypto'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LOOPBACK_HOSTS } from '../../src/index.js'
import { problems, REQUIRED, runConformance, sessionProblems, summary, taskProblems } from '../helpers/conformance.js'
import { until } from '../helpers/async.js'
import { startFunction, type LocalFunction } from '../helpers/lambda.js'
import { REDIS_URL } from '../helpers/redis.js'
import { draftWireChecks } from '../helpers/draft-checks.js'
import { resumableChecks } from '../helpers/resumable-checks.js'
import { recordingFetch } from '../helpers/wire.js'

let fn: LocalFunction
let wire: ReturnType<typeof recordingFetch>

beforeAll(async () => {
  fn = await startFunction(undefined, 'everything', {
    instances: 2,
    // The default, as npm run start:lambda has it: an environment busy with a task takes no other request.
    timeoutMs: 30_000,
    env: {
      REDIS_URL,
      REDIS_PREFIX: `lambda-test-${randomBytes(4).toString('hex')}:`,
      MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('hex'),
      MCP_ALLOWED_HOSTS: LOOPBACK_HOSTS.join(','),
    },
  })
}, 60_000)
afterAll(() => fn?.close())
afterEach(async () => {
  await wire?.settled()
  expect(wire?.violations ?? []).toEqual([])
})

async function connect() {
  wire = recordingFetch()
  const client = new Client({ name: 'lambda-test', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(fn.url.replace('127.0.0.1', 'localhost')), { fetch: wire.fetch }))
  return client
}

describe('examples/everything on the local function URL', () => {
  // Not under StrykerJS: a conformance run takes minutes for each mutant it would see (vitest.config.ts).
  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('passes the conformance requirement set, and every tasks-* check with tasks in Redis', async () => {
    const { output, results } = await runConformance(`http://localhost:${fn.port}/mcp`, ['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, REQUIRED)).toEqual([])
    expect(REQUIRED.filter((s) => !results.has(s))).toEqual([])
    expect(taskProblems(results)).toEqual([])
  }, 240_000)

  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('passes the 2025-11-25 requirement set: sessions in Redis, a question on one instance answered on another', async () => {
    const { output, results } = await runConformance(`http://localhost:${fn.port}/mcp`, ['--requirements', '2025-11-25'])
    console.log(summary(output))
    expect(sessionProblems(results)).toEqual([])
  }, 240_000)

  // Timed, so not under StrykerJS, whose parallel runs on a loaded machine bunch the arrivals up.
  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('streams progress as it happens, through the hold Lambda puts on small writes', async () => {
    const client = await connect()
    // Once untimed: the test's own schema validators compile on the first message of each kind.
    await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: () => {} })
    const arrived: number[] = []
    const result = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, {
      onprogress: () => void arrived.push(performance.now()),
    })
    expect(result.content).toEqual([{ type: 'text', text: 'Progress complete' }])
    // The tool waits 50 ms between reports: held back until the result, they would arrive together.
    expect(arrived.length).toBeGreaterThanOrEqual(2)
    expect(arrived[1]! - arrived[0]!).toBeGreaterThanOrEqual(20)
    await client.close()
  })

  it('completes input requests over several rounds, whichever process each round reaches', async () => {
    const client = await connect()
    client.setRequestHandler('elicitation/create', async (req) => {
      const field = Object.keys((req.params as { requestedSchema: { properties: object } }).requestedSchema.properties)[0]!
      return { action: 'accept', content: { [field]: field === 'color' ? 'teal' : 'Ada' } }
    })
    const rounds = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} })
    expect(rounds.content).toEqual([{ type: 'text', text: 'Hello Ada, your favourite colour is teal' }])
    await client.close()
  })

  it('listen() hears a change made by an invocation on another process, through Redis', async () => {
    const client = await connect()
    const seen: string[] = []
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'))
    const subscription = await client.listen({ toolsListChanged: true })
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true })
    // The listen holds its environment for as long as it runs, so this call runs in another one.
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await until(() => seen.length >= 1, 8000, 'tools/list_changed from the other process')
    expect(seen).toEqual(['tools'])
    expect(fn.environments.filter((e) => e.pid !== undefined).length).toBeGreaterThanOrEqual(2)
    await subscription.close()
    await client.close()
  })
})

// Two instances sharing Redis: the call runs on in the invocation that made it, after its client left.
describe('examples/everything on the local function URL: resumable requests', () => {
  resumableChecks(() => [fn.url, fn.url])
})

describe('examples/everything on the local function URL: DRAFT-2026-v1 clients', () => {
  draftWireChecks(() => fn.url)
})
