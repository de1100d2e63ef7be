/**
 * `npm run start:lambda` as a new user runs it, with no environment set: it starts a Redis of its own (the
 * machine has redis-server), says so first, and then behaves as a deployment with a shared Redis does: the
 * conformance requirement set passes, and a listen stream hears a change another invocation makes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { problems, REQUIRED, runConformance, summary, taskProblems } from '../helpers/conformance.js'

let child: ChildProcess
let lines: string[] = []
let url: string
let redisPort: string | undefined

beforeAll(async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LAMBDA_BUILD_DIR: 'dist/lambda/start-lambda-test' }
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_PREFIX', 'MCP_REQUEST_STATE_SECRET']) delete env[name]
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-lambda.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (c) => {
    out += c
    lines = out.split('\n')
  })
  child.stderr!.resume()
  await until(() => /mcp-edge-lambda: (http:\S+) runs/.test(out), 120_000, 'the function URL')
  url = /mcp-edge-lambda: (http:\S+) runs/.exec(out)![1]!.replace('127.0.0.1', 'localhost')
}, 150_000)

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  }
  // Its Redis goes with it (told to stop as the command exits).
  const port = redisPort
  if (port) await until(() => spawnSync('redis-cli', ['-p', port, 'ping']).stdout.toString().trim() !== 'PONG', 5000, 'the private redis-server to stop')
})

describe('npm run start:lambda with no environment', () => {
  it('says first that a private redis-server is its shared Redis, and stops it when it stops', () => {
    expect(lines[0]).toMatch(/^mcp-edge-lambda: no REDIS_URL: a private redis-server at redis:\/\/127\.0\.0\.1:\d+ is this function's shared Redis/)
    redisPort = /127\.0\.0\.1:(\d+)/.exec(lines[0]!)![1]!
    expect(spawnSync('redis-cli', ['-p', redisPort, 'ping']).stdout.toString().trim()).toBe('PONG')
  })

  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('passes the conformance requirement set, tasks-* included, at the default timeout', async () => {
    const { output, results } = await runConformance(url, ['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(problems(results, REQUIRED)).toEqual([])
    expect(taskProblems(results)).toEqual([])
  }, 240_000)

  it('lets the SDK v2 client\'s listen() hear a change another invocation makes', async () => {
    const client = new Client({ name: 'start-lambda-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    const seen: string[] = []
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'))
    const subscription = await client.listen({ toolsListChanged: true })
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })
    await until(() => seen.length >= 1, 8000, 'tools/list_changed')
    expect(seen).toEqual(['tools'])
    await subscription.close()
    await client.close()
  })
})
