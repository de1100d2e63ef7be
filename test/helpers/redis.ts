/** A Redis server of the test's own on a free port, so a test can stop and restart it. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

export async function ownRedis() {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let log = ''
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (c) => {
        log += c
        if (log.includes('Ready to accept connections')) resolve()
      })
      child!.once('exit', () => reject(new Error(`redis-server exited: ${log}`)))
    })
  }
  const stop = async () => {
    if (!child || child.exitCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGKILL')
    await exited
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, start, stop }
}
