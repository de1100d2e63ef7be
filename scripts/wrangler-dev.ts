/** Starts the everything Worker under `wrangler dev` (scripts/dev.sh), for tests and benchmarks, and stops it with its workerd. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'

/** `persistTo`: where Durable Object state lives; instances running at once each need their own. */
export async function startWranglerDev(extra: string[] = [], env: Record<string, string> = {}, persistTo = '.wrangler/local-state'): Promise<{ url: string; port: number; stop(): Promise<void> }> {
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const port = (probe.address() as { port: number }).port
  await new Promise((r) => probe.close(r))
  const child = spawn('scripts/dev.sh', ['--persist-to', persistTo, '--show-interactive-dev-session=false', ...extra], {
    env: { ...process.env, PORT: String(port), CI: '1', NO_COLOR: '1', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  await new Promise<void>((resolve, reject) => {
    const on = (c: Buffer) => {
      log += c
      if (/Ready on http:\/\/127\.0\.0\.1:\d+/.test(log)) resolve()
    }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
    child.once('exit', () => reject(new Error(`wrangler dev exited: ${log}`)))
    setTimeout(() => reject(new Error(`wrangler dev did not start: ${log}`)), 60_000).unref()
  })
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      // Its own process group: stopping wrangler must also stop the workerd processes it started.
      process.kill(-child.pid!, 'SIGTERM')
      await exited
    },
  }
}
