/**
 * The official conformance suite against the Node server: the frozen 2026-07-28 requirement set with zero
 * failures and no expected-failures file, then everything the suite has for 2026-07-28.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { LISTEN_CHECKS, problems, REQUIRED, runConformance, sessionProblems, statuses, summary, taskProblems } from '../helpers/conformance.js'
import { randomBytes } from 'node:crypto'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { REDIS_URL } from '../helpers/redis.js'
import { roundRobin } from '../helpers/round-robin.js'
import { startEverything, TEST_SECRET } from '../helpers/server.js'

let running: RunningServer
// The DNS-rebinding scenario needs a loopback name in the URL.
const url = () => `http://localhost:${running.port}/mcp`
beforeAll(async () => {
  running = await startEverything()
})
afterAll(() => running.close())

describe('official conformance suite (Node)', () => {
  it('passes every scenario 2026-07-28 requires, with no expected-failures file, and every tasks-* check (run unscored)', async () => {
    const { code, output, results } = await runConformance(url(), ['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, REQUIRED)).toEqual([])
    expect(taskProblems(results)).toEqual([])
    expect(REQUIRED.filter((s) => !results.has(s))).toEqual([])
    expect(code).toBe(0)
  }, 240_000)

  it('runs the whole suite at 2026-07-28: no failures, no warnings, listen checks passed (not skipped)', async () => {
    const { output, results } = await runConformance(url(), ['--suite', 'all', '--spec-version', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, undefined, ['FAILURE', 'WARNING'])).toEqual([])
    expect(statuses(results, 'server-stateless', LISTEN_CHECKS)).toEqual(LISTEN_CHECKS.map((id) => [id, 'SUCCESS']))
  }, 240_000)
})

describe('official conformance suite (npm start with REDIS_URL: Redis backplane and task store)', () => {
  let server: EverythingProcess
  beforeAll(async () => {
    server = await startEverythingProcess({ REDIS_URL, REDIS_PREFIX: `conformance-${randomBytes(4).toString('hex')}:`, MCP_REQUEST_STATE_SECRET: TEST_SECRET })
  })
  afterAll(() => server?.stop())

  it('passes every scenario 2026-07-28 requires, and every tasks-* check', async () => {
    const { output, results } = await runConformance(server.url.replace('127.0.0.1', 'localhost'), ['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, REQUIRED)).toEqual([])
    expect(taskProblems(results)).toEqual([])
  }, 240_000)
})

describe('official conformance suite, 2025-11-25 requirement set (2025 sessions)', () => {
  it('passes every scenario 2025-11-25 requires against one process, session lifecycle included', async () => {
    const { output, results } = await runConformance(url(), ['--requirements', '2025-11-25'])
    console.log(summary(output))
    expect(sessionProblems(results)).toEqual([])
  }, 240_000)

  it('passes it through a round-robin proxy over two npm start processes sharing Redis: no request needs the instance before it', async () => {
    const env = { REDIS_URL, REDIS_PREFIX: `sessions-${randomBytes(4).toString('hex')}:`, MCP_REQUEST_STATE_SECRET: TEST_SECRET }
    const servers = await Promise.all([startEverythingProcess(env), startEverythingProcess(env)])
    const proxy = await roundRobin(servers.map((s) => s.url))
    try {
      const { output, results } = await runConformance(proxy.url, ['--requirements', '2025-11-25'])
      console.log(summary(output))
      expect(sessionProblems(results)).toEqual([])
      expect(Math.min(...proxy.counts)).toBeGreaterThan(50)
    } finally {
      await proxy.close()
      await Promise.all(servers.map((s) => s.stop()))
    }
  }, 240_000)
})
