/** The Node entry point as `npm start` runs it: listens on loopback, finishes in-flight work on SIGTERM, exits 0. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import { META_2026, modernHeaders } from '../helpers/server.js'
import { sseMessages } from '../helpers/wire.js'

function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/everything/node.ts'], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c) => {
      log += c
      const m = /listening on (\S+)/.exec(log)
      if (m) resolve(m[1]!)
    })
    child.on('exit', () => reject(new Error(`exited early: ${log}`)))
  })
  return { child, url, log: () => log }
}

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
