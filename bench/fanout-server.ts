/** The server half of the listen fan-out benchmark: a child process driven over IPC. */
import { serve } from '../adapters/node/index.js'
import { redisBackplane } from '../adapters/redis/index.js'
import { McpServer } from '../src/index.js'

const kind = process.env.BACKPLANE ?? 'memory'
const backplane = kind === 'redis' ? redisBackplane({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `bench-${process.pid}:` }) : undefined
const server = new McpServer({ name: 'fanout-bench', version: '1.0.0' }).tool('noop', { description: 'does nothing' }, () => '')
// Keep-alives far apart, so that they do not show up in the delivery figures.
// Every stream comes from this machine, one client by address: the per-client limit would stop them at 100.
const running = await serve(server, { port: 0, handleSignals: false, keepAliveMs: 600_000, backplane, listen: { maxStreams: Infinity, maxStreamsPerClient: Infinity } })
const now = () => performance.timeOrigin + performance.now()
const gc = (globalThis as { gc?: () => void }).gc

process.on('message', async (m: { type: string }) => {
  if (m.type === 'memory') {
    for (let i = 0; i < 3; i++) gc?.()
    await new Promise((r) => setTimeout(r, 50))
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
    process.send!({ type: 'memory', rss, heapUsed, external, arrayBuffers })
  } else if (m.type === 'publish') {
    const t0 = now()
    await running.notify.toolsChanged()
    process.send!({ type: 'published', t0 })
  } else if (m.type === 'stop') {
    await running.close()
    await backplane?.close()
    process.exit(0)
  }
})
process.send!({ type: 'ready', url: running.url })
