import { createServer } from 'node:net'

/** A loopback port free right now, for a process that must be told its port before it listens. */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const { port } = probe.address() as { port: number }
  await new Promise((r) => probe.close(r))
  return port
}
