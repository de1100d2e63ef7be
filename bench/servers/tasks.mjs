// The tasks benchmark server: a no-op task tool and a plain echo on serve(), tasks in memory or, with
// TASK_STORE=redis, in Redis (REDIS_URL, REDIS_PREFIX).
import { McpServer, memoryTaskStore, tasks } from 'mcp-edge'
import { serve } from 'mcp-edge/node'
import { redisBackplane, redisTaskStore } from 'mcp-edge/redis'
import { announce } from './child.mjs'

const redis = process.env.TASK_STORE === 'redis'
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const prefix = process.env.REDIS_PREFIX ?? 'mcp-bench'
const server = new McpServer({ name: 'bench-tasks', version: '1.0.0' })
  .tool('echo', { description: 'Echoes its text' }, ({ text }) => String(text))
  .tool('noop', { description: 'Does nothing, as a task', task: 'required' }, () => 'ok')

const running = await serve(server, {
  port: 0,
  handleSignals: false,
  // Throughput, not the limits: every task of a run is kept (bench/tasks.ts makes tens of thousands).
  extensions: [tasks({ store: redis ? redisTaskStore({ url, prefix }) : memoryTaskStore({ maxBytes: 2 ** 31 }), maxRecords: 1e7, maxPerClient: 1e7 })],
  backplane: redis ? redisBackplane({ url, prefix }) : undefined,
})
announce(running.url)
