/** A Redis server of the test's own on a free port, so a test can stop and restart it. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect, createServer } from 'node:net'

/** Set by the machine (CI) or by test/setup/redis.ts, which starts a Redis for the run when none is given. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

/** The server binary the tests start: `valkey-server` to run them on Valkey (scripts/test-valkey.sh). */
export const REDIS_SERVER = process.env.MCP_EDGE_REDIS_SERVER ?? 'redis-server'

export const hasRedisServer = () => spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).error === undefined

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** One PING over a raw connection: whether the server answers yet (a refused connection means not yet). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    let reply = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.on('data', (c) => {
      reply += c
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'))
    })
    socket.on('error', () => done(false))
  })
}

export async function ownRedis() {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    const proc = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] })
    child = proc
    let log = ''
    proc.stdout!.on('data', (c) => (log += c))
    // Exiting before it answers (port taken meanwhile, bad flag) ends the wait with redis-server's own words.
    const exited = new Promise<never>((_, reject) => proc.once('exit', () => reject(new Error(`redis-server exited: ${log}`))))
    exited.catch(() => {})
    for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 20))) {
      if (await Promise.race([answersPing(port), exited])) break
      if (Date.now() > end) {
        proc.kill('SIGKILL')
        throw new Error(`redis-server did not answer PING on port ${port}: ${log}`)
      }
    }
  }
  const stop = async () => {
    // A killed child has a signalCode and no exitCode: stopping twice must not wait for a second exit.
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGKILL') // a paused server dies of it too
    await exited
  }
  /** SIGSTOP: connections stay open and nothing answers, as in a stall (a long fork, a paused VM). */
  const pause = () => void child!.kill('SIGSTOP')
  const resume = () => void child!.kill('SIGCONT')
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, pause, resume }
}
