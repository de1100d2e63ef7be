/**
 * serve()'s listen streams written straight to the connection (adapters/node/sse.ts), in this process: a client
 * that stops reading is cut once Node's backlog passes the bound, and a client that leaves gives its place back.
 */
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { McpServer, memoryBackplane } from '../../src/index.js'
import { serve, type RunningServer } from '../../adapters/node/index.js'
import { META_2026, modernHeaders } from '../helpers/server.js'

const body = JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META_2026() } })
const headers = modernHeaders('subscriptions/listen')

let running: RunningServer | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

async function start(options: Parameters<typeof serve>[1] = {}) {
  const backplane = memoryBackplane()
  const server = new McpServer({ name: 'sse', version: '1.0.0' }).tool('t', {}, () => '')
  running = await serve(server, { port: 0, handleSignals: false, log: false, backplane, ...options })
  return { running, backplane }
}

const until = async (ok: () => boolean, ms = 3000) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 10))
  return ok()
}

describe('serve(): listen streams on the connection', () => {
  it('cuts a client that stops reading once its backlog passes the bound, and frees its subscription', async () => {
    const { running, backplane } = await start()
    // A raw socket that sends the request and then reads nothing: what the server writes piles up.
    const socket = connect(running.port, '127.0.0.1')
    let closed = false
    socket.once('close', () => void (closed = true))
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    const head = Object.entries({ ...headers, host: `127.0.0.1:${running.port}`, 'content-length': String(Buffer.byteLength(body)) }).map(([k, v]) => `${k}: ${v}`)
    socket.write(`POST /mcp HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n${body}`)
    socket.pause()
    expect(await until(() => backplane.size === 1)).toBe(true)
    // Loopback's socket buffers take several MB before Node's own backlog grows; 200,000 changes are ~26 MB.
    let published = 0
    while (backplane.size > 0 && published < 200_000) {
      await running.notify.toolsChanged()
      published++
    }
    expect(backplane.size).toBe(0)
    // Cut, not merely forgotten: the server closes the connection it stopped writing to (seen once the
    // client reads what had piled up).
    socket.resume()
    expect(await until(() => closed, 5000)).toBe(true)
  })

  it('gives a client that leaves its place back: the next stream of a client allowed one opens', async () => {
    const { running, backplane } = await start({ listen: { maxStreamsPerClient: 1 } })
    const open = async () => {
      const leave = new AbortController()
      const res = await fetch(running.url, { method: 'POST', headers, body, signal: leave.signal })
      const reader = res.body!.getReader()
      const first = new TextDecoder().decode((await reader.read()).value)
      return { res, first, leave }
    }
    const one = await open()
    expect(one.res.status).toBe(200)
    expect(one.first).toContain('notifications/subscriptions/acknowledged')
    one.leave.abort()
    expect(await until(() => backplane.size === 0)).toBe(true)
    const two = await open()
    expect(two.res.status).toBe(200)
    expect(two.first).toContain('notifications/subscriptions/acknowledged')
    two.leave.abort()
  })
})
