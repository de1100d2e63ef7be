// The server half of the listen fan-out benchmark (bench/listen-fanout.ts): mcp-edge's serve().
import { McpServer } from 'mcp-edge'
import { serve } from 'mcp-edge/node'
import { redisBackplane } from 'mcp-edge/redis'
import { drive } from './fanout-ipc.mjs'

const kind = process.env.BACKPLANE ?? 'memory'
// One prefix for every server process of a run (--servers), so that they share the fan-out.
const prefix = process.env.BENCH_PREFIX ?? `bench-${process.pid}:`
const backplane = kind === 'redis' ? redisBackplane({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix })
  : kind === 'redis-cluster' ? redisBackplane({ cluster: process.env.REDIS_CLUSTER_NODES.split(','), prefix }) : undefined
const server = new McpServer({ name: 'fanout-bench', version: '1.0.0' }).tool('noop', { description: 'does nothing' }, () => '')
// Keep-alives far apart, so that they do not show up in the delivery figures.
// Every stream comes from this machine, a few clients by address: the limits of streams per client, of
// streams per handler (10,000) and of connections (16,384) would stop the benchmark short, so all are lifted.
const running = await serve(server, {
  port: 0, handleSignals: false, keepAliveMs: 600_000, backplane, maxConnections: Infinity,
  listen: { maxStreams: Infinity, maxStreamsPerClient: Infinity },
})
drive(running.url, () => running.notify.toolsChanged(), async () => {
  await running.close()
  await backplane?.close()
})
