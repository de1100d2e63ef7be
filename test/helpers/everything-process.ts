/** The everything server as `npm start` runs it, in a process of its own, for tests that kill or share one. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

export interface EverythingProcess {
  readonly child: ChildProcess
  readonly url: string
  /** Sends `signal` (default SIGTERM: a graceful stop) and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** What it wrote to stderr so far. */
  log(): string
}

/** Starts examples/everything/node.ts on a free port (PORT=0) with `env` added; resolves once it listens. */
export const startEverythingProcess = (env: Record<string, string>) => startServerProcess('examples/everything/node.ts', env)

/** Starts a server script that logs "listening on <url>" on stderr; `nodeArgs` go to node (e.g. --expose-gc). */
export function startServerProcess(entry: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<EverythingProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill(signal)
    await exited
  }
  let log = ''
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c) => {
      log += c
      const m = /listening on (\S+)/.exec(log)
      if (m) resolve({ child, url: m[1]!, stop, log: () => log })
    })
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${log}`)))
  })
}
