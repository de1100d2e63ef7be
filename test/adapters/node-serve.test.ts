/** The Node entry point as `npm start` runs it: listens on loopback, finishes in-flight work on SIGTERM, exits 0. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { createEverythingServer } from '../../examples/everything/server.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { sseMessages } from '../helpers/wire.js'

function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/everything/node.ts'], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  let stdout = ''
  child.stdout.on('data', (c) => (stdout += c))
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c) => {
      log += c
      const m = /listening on (\S+)/.exec(log)
      if (m) resolve(m[1]!)
    })
    child.on('exit', () => reject(new Error(`exited early: ${log}`)))
  })
  return { child, url, log: () => log, stdout: () => stdout }
}

/** Starts it with `env`, reads its start-up line, stops it. */
async function startUpLine(env: Record<string, string> = {}) {
  const { child, url, log, stdout } = start(env)
  try {
    await url
    return { line: log().split('\n').find((l) => l.includes('listening on'))!, url: await url, stdout: stdout() }
  } finally {
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
}

const VERSIONS = createEverythingServer().versions.join(', ')

describe('node entry point', () => {
  it('binds 127.0.0.1 by default and drains in-flight requests on SIGTERM', async () => {
    const { child, url: pending, log } = start()
    const url = await pending
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)

    const params = { name: 'test_tool_with_progress', arguments: {}, _meta: META_2026({}, { progressToken: 't' }) }
    const res = await fetch(url, { method: 'POST', headers: modernHeaders('tools/call', params), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) })
    const messages = sseMessages(res.body!)
    expect((await messages.next()).value).toMatchObject({ method: 'notifications/progress' })

    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    const rest = []
    for await (const m of messages) rest.push(m)
    expect(rest.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'Progress complete' }] } })
    const [code] = await exited
    expect(code).toBe(0)
    expect(log()).toContain('SIGTERM, shutting down')
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow()
  })

  it('says in one line on stderr where it listens, the versions it serves and what it keeps where', async () => {
    // The test run's REDIS_URL is not this server's.
    const { line, url, stdout } = await startUpLine({ REDIS_URL: '' })
    expect(line).toBe(`mcp-edge: listening on ${url} | versions ${VERSIONS} | backplane memory | auth off | tasks memory | resumable memory`)
    expect(VERSIONS).toMatch(/^2026-07-28, DRAFT-2026-v1, 2025-/)
    expect(stdout).toBe('')
  })

  it('names Redis as backplane and tasks store when REDIS_URL is set', async () => {
    const { line, url } = await startUpLine({ REDIS_URL })
    expect(line).toBe(`mcp-edge: listening on ${url} | versions ${VERSIONS} | backplane redis | auth off | tasks redis | resumable redis`)
  })

  it('prints nothing with log: false, not even the warning about a host beyond loopback', async () => {
    const script = `
      import { serve } from './adapters/node/index.ts'
      import { McpServer } from './src/index.ts'
      const running = await serve(new McpServer({ name: 'quiet', version: '1.0.0' }), { port: 0, host: '0.0.0.0', log: false })
      await running.close()`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c) => (output += c))
    child.stderr.on('data', (c) => (output += c))
    const [code] = await once(child, 'exit')
    expect({ code, output }).toEqual({ code: 0, output: '' })
  })

  it('HOST and PORT choose the address', async () => {
    const { child, url } = start({ HOST: 'localhost' })
    try {
      expect(await url).toMatch(/^http:\/\/localhost:\d+\/mcp$/)
    } finally {
      child.kill('SIGINT')
      await once(child, 'exit')
    }
  })
})
