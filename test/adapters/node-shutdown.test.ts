/**
 * Shutdown in order, in processes of their own: on SIGTERM a server stops taking connections, lets calls in
 * flight and the tasks it runs finish within its grace period, then runs its shutdown work (onShutdown) and
 * only then exits. Tasks are read back through another server sharing the Redis, as a rolling deploy would.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { serve } from '../../adapters/node/index.js'
import { redisTaskStore } from '../../adapters/redis/index.js'
import { createFetchHandler, McpServer, memoryTaskStore, tasks } from '../../src/index.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { otlpReceiver, type OtlpReceiver } from '../helpers/otel.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, rpc } from '../helpers/server.js'
import { taskClient } from '../helpers/tasks.js'

const TASKS_STARTED = 5

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()))
})

/** Another server on the same Redis prefix, in this process: where a client reads tasks once the first has gone. */
function secondServer(prefix: string) {
  const store = redisTaskStore({ url: REDIS_URL, prefix })
  const server = new McpServer({ name: 'second', version: '1.0.0' }).tool('work', { task: 'required' }, () => 'not run here')
  const handler = createFetchHandler(server, { store, extensions: [tasks()] })
  cleanup.push(async () => {
    await handler.close()
    await store.close()
  })
  return taskClient(handler)
}

/**
 * serve() in a child: `work` runs 3 s as a task, `call` answers after 1.5 s, both in Redis under `prefix`;
 * its shutdown work closes the Redis connections, waits 300 ms and writes `done`.
 */
function child(prefix: string, done: string) {
  const script = `
    import { writeFile } from 'node:fs/promises'
    import { serve } from './adapters/node/index.ts'
    import { redisBackplane, redisTaskStore } from './adapters/redis/index.ts'
    import { McpServer, tasks } from './src/index.ts'
    const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
    const redis = { url: process.env.REDIS_URL, prefix: process.env.PREFIX }
    const store = redisTaskStore(redis)
    const backplane = redisBackplane(redis)
    const server = new McpServer({ name: 'shutdown', version: '1.0.0' })
      .tool('work', { task: 'required' }, async () => { await wait(3000); return 'worked for 3 s' })
      .tool('call', {}, async () => { await wait(1500); return 'answered' })
    await serve(server, {
      port: 0, store, backplane, extensions: [tasks()], shutdownGraceMs: 10_000,
      onShutdown: async () => {
        await Promise.all([store.close(), backplane.close()])
        await wait(300)
        await writeFile(process.env.DONE, 'shutdown work done')
      },
    })`
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, REDIS_URL, PREFIX: prefix, DONE: done },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  cleanup.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  })
  let log = ''
  const url = new Promise<string>((resolve, reject) => {
    proc.stderr.on('data', (c) => {
      log += c
      const m = /listening on (\S+)/.exec(log)
      if (m) resolve(m[1]!)
    })
    proc.once('exit', () => reject(new Error(`exited early: ${log}`)))
  })
  return { proc, url, log: () => log }
}

describe('SIGTERM with a 10 s grace period', () => {
  it('finishes the tasks running (3 s each) and the call in flight, then awaits the shutdown work before exiting', async () => {
    const prefix = `shutdown-${crypto.randomUUID()}:`
    const done = join(tmpdir(), `mcp-edge-shutdown-${crypto.randomUUID()}`)
    cleanup.push(() => rm(done, { force: true }))
    const { proc, url: pending, log } = child(prefix, done)
    const url = await pending
    const client = taskClient(url)
    const ids = await Promise.all(Array.from({ length: TASKS_STARTED }, () => client.start('work')))
    const call = rpc(fetch, 'tools/call', { name: 'call', arguments: {}, _meta: META_2026() }, { url })
    await new Promise((r) => setTimeout(r, 100))

    const exited = once(proc, 'exit')
    proc.kill('SIGTERM')
    const answer = (await call).body.result?.content?.[0]?.text
    const [code] = await exited
    const written = await readFile(done, 'utf8').catch(() => 'never written')
    // The process has gone: what a client reads through another server is what the first one stored.
    const second = secondServer(prefix)
    const statuses = await Promise.all(ids.map(async (id) => (await second.get(id)).result))
    const completed = statuses.filter((t) => t?.status === 'completed').length
    expect({ answer, code, written, completed }).toEqual({ answer: 'answered', code: 0, written: 'shutdown work done', completed: TASKS_STARTED })
    expect(statuses[0]).toMatchObject({ result: { content: [{ type: 'text', text: 'worked for 3 s' }] } })
    expect(log()).toContain('SIGTERM, shutting down')
  }, 30_000)
})

describe('close() past the grace period', () => {
  it('fails a task still running, saying why, and only then runs the shutdown work; a failing one rejects close()', async () => {
    const store = memoryTaskStore()
    const seen: string[] = []
    const server = new McpServer({ name: 'stuck', version: '1.0.0' }).tool('forever', { task: 'required' }, () => new Promise(() => {}))
    const running = await serve(server, {
      port: 0, handleSignals: false, log: false, extensions: [tasks({ store })], shutdownGraceMs: 300,
      onShutdown: async () => {
        seen.push(`task ${(await store.get(id))?.status} when the shutdown work ran`)
        throw new Error('flush failed')
      },
    })
    const id = await taskClient(running.url).start('forever')
    await expect(running.close()).rejects.toThrow('flush failed')
    expect(seen).toEqual(['task failed when the shutdown work ran'])
    expect(await store.get(id)).toMatchObject({ status: 'failed', error: { message: 'The server shut down while the task ran' } })
  })
})

describe('npm start with OTEL_EXPORTER_OTLP_ENDPOINT and REDIS_URL, on SIGTERM', () => {
  let otlp: OtlpReceiver | undefined
  let server: EverythingProcess | undefined
  afterEach(async () => {
    await server?.stop('SIGKILL')
    await otlp?.close()
  })

  it('exports the spans still buffered, the run of a task that finished during the grace period among them, before it exits', async () => {
    otlp = await otlpReceiver()
    const prefix = `shutdown-otel-${crypto.randomUUID()}:`
    server = await startEverythingProcess({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'leaving',
      // Nothing leaves by the batch's own schedule within the test: what arrives, the shutdown flushed.
      OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_METRIC_EXPORT_INTERVAL: '60000',
      REDIS_URL, REDIS_PREFIX: prefix, MCP_REQUEST_STATE_SECRET: 's'.repeat(32),
    })
    const id = await taskClient(server.url).start('slow_compute', { seconds: 3 })
    await server.stop('SIGTERM')
    expect(server.child.exitCode).toBe(0)
    const names = otlp.spans.filter((s) => s.service === 'leaving').map((s) => s.name)
    expect(names).toEqual(expect.arrayContaining(['tools/call slow_compute', 'execute_tool slow_compute']))
    expect((await secondServer(prefix).get(id)).result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Computed result in 3s' }] } })
  }, 30_000)
})
