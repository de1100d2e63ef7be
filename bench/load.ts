/** Load generation with wrk (a separate process) and the bookkeeping around benchmark server processes. */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
  } catch (e) {
    // wrk --version exits 1 after printing; only a missing binary throws ENOENT.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return
    if (process.getuid?.() === 0) {
      console.log('installing wrk (apt-get install wrk)')
      execFileSync('sh', ['-c', 'apt-get install -y -qq wrk || (apt-get update -qq && apt-get install -y -qq wrk)'], { stdio: 'inherit' })
    } else throw new Error('the benchmarks need wrk: sudo apt-get install wrk')
  }
}

export interface Server {
  name: string
  url: string
  child: ChildProcess
  memory(): Promise<{ rss: number; heapUsed: number }>
  /** CPU time the server process has used so far, in µs (user + system). */
  cpu(): Promise<number>
  stop(): Promise<void>
}

/** Starts bench/servers/<file> (plain JavaScript on the built package: run `npm run build` first). */
export async function startServer(name: string, file: string, execArgv: string[] = [], env: Record<string, string> = {}): Promise<Server> {
  // The server on one core, wrk on the other (see wrk()): neither steals the other's CPU mid-run.
  const child = spawn('taskset', ['-c', '0', process.execPath, '--expose-gc', ...execArgv, new URL(`./servers/${file}`, import.meta.url).pathname], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve(m.url))
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)))
  })
  return {
    name, url, child,
    memory: () => new Promise((resolve) => {
      child.once('message', (m: { rss: number; heapUsed: number }) => resolve(m))
      child.send({ type: 'memory' })
    }),
    cpu: () => new Promise((resolve) => {
      child.once('message', (m: { user: number; system: number }) => resolve(m.user + m.system))
      child.send({ type: 'cpu' })
    }),
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    }),
  }
}

/** A request of a benchmark; `headers` are sent besides the MCP ones (an Authorization, say). */
export interface Request { method: string; params: Record<string, unknown>; headers?: Record<string, string> }

export const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }

export function headersFor(r: Request): Record<string, string> {
  const h: Record<string, string> = {
    'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': r.method,
  }
  if (r.method === 'tools/call') h['Mcp-Name'] = r.params.name as string
  if (r.method.startsWith('tasks/')) h['Mcp-Name'] = r.params.taskId as string
  return { ...h, ...r.headers }
}

export const bodyFor = (r: Request) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: r.method, params: { ...r.params, _meta: { ...META, ...(r.params._meta as object) } } })

const dir = mkdtempSync(join(tmpdir(), 'mcp-bench-'))
let scripts = 0

/** A wrk Lua script posting this request. */
function script(r: Request): string {
  const lua = [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(bodyFor(r))}`,
    ...Object.entries(headersFor(r)).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
  ].join('\n')
  const file = join(dir, `s${scripts++}.lua`)
  writeFileSync(file, lua)
  return file
}

export interface WrkResult { rps: number; p50: number; p99: number; requests: number; errors: number }

const toMs = (v: string) => {
  const m = /([\d.]+)(us|ms|s)/.exec(v)!
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1)
}

export function wrk(url: string, r: Request, options: { seconds: number; connections: number }): Promise<WrkResult> {
  const args = ['-c', '1', 'wrk', '-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', '-s', script(r), url]
  return new Promise((resolve, reject) => {
    execFile('taskset', args, { maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) return reject(error)
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
      const p50 = toMs(/\s50%\s+(\S+)/.exec(stdout)![1]!)
      const p99 = toMs(/\s99%\s+(\S+)/.exec(stdout)![1]!)
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1])
      const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) + Number(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0)
      resolve({ rps, p50, p99, requests, errors })
    })
  })
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
