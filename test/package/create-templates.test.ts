/**
 * What `npm create mcp-edge` gives a user, end to end: mcp-edge and create-mcp-edge packed, the packed
 * create-mcp-edge run by `npm exec` (which is what `npm create` runs) into an empty folder per runtime, with
 * mcp-edge taken from its tarball and everything else from the npm registry, then the project's own
 * `npm install && npm test`, then `npm run dev` answering the SDK client. Each template's test type-checks
 * it and calls its tool and resource through the official SDK client on the runtime it is for: workerd
 * for Workers, aws-lambda-ric for Lambda (test/package/create-generator.test.ts covers the bin itself).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../helpers/port.js'
import { pack, run } from './install-packed.js'

let packs: string
let mcpEdge: string
let creator: string
const projects: string[] = []

/**
 * The environment of a user's shell, not of this test run: vitest's variables would make the project's own
 * vitest think it runs inside this one, and npm's lifecycle variables (npm test runs this) would point the
 * project's npm at this repository.
 */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) =>
  !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$|npm_)/i.test(key) || /^npm_config_(cache|registry|userconfig)$/i.test(key)))

beforeAll(async () => {
  packs = mkdtempSync(join(tmpdir(), 'create-mcp-edge-packs-'))
  ;[mcpEdge, creator] = await Promise.all([pack(process.cwd(), join(packs, 'mcp-edge')), pack(resolve('create-mcp-edge'), join(packs, 'create'))])
}, 180_000)

afterAll(() => {
  for (const dir of [packs, ...projects]) if (dir) rmSync(dir, { recursive: true, force: true })
})

async function seconds<T>(work: () => Promise<T>): Promise<[T, string]> {
  const start = performance.now()
  const result = await work()
  return [result, ((performance.now() - start) / 1000).toFixed(1)]
}

describe('npm create mcp-edge', () => {
  it.each(['node', 'workers', 'lambda'])('%s: the generated project passes npm install && npm test', async (runtime) => {
    const dir = mkdtempSync(join(tmpdir(), `create-mcp-edge-${runtime}-`))
    projects.push(dir)
    await run('npm', ['exec', '--yes', `--package=${creator}`, '--', 'create-mcp-edge', 'my-server', '--runtime', runtime, '--no-install', '--mcp-edge', `file:${mcpEdge}`], { cwd: dir, env })
    const project = join(dir, 'my-server')
    const [, install] = await seconds(() => run('npm', ['install', '--no-audit', '--no-fund'], { cwd: project, env }))
    const [{ stdout }, test] = await seconds(() => run('npm', ['test'], { cwd: project, env: { ...env, NO_COLOR: '1' }, maxBuffer: 16 << 20 }))
    console.log(`${runtime} template: npm install ${install} s, npm test ${test} s`)
    expect(stdout).toMatch(/Tests\s+3 passed \(3\)/)

    expect(await devGreets(project, runtime)).toMatchObject({ content: [{ type: 'text', text: 'Hello, dev!' }] })
  }, 900_000)
})

/**
 * `npm run dev` on a free port (PORT for Node; --port for wrangler dev and mcp-edge-lambda) and, once it
 * answers, a greet call through the SDK client; then it is stopped with every process it started (workerd,
 * the runtime clients).
 */
async function devGreets(project: string, runtime: string): Promise<unknown> {
  const port = await freePort()
  const child = spawn('npm', ['run', 'dev', ...(runtime === 'node' ? [] : ['--', '--port', String(port)])], {
    cwd: project, env: { ...env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  child.stderr.on('data', (chunk) => (log += chunk))
  const url = new URL(`http://localhost:${port}/mcp`)
  try {
    for (const end = Date.now() + 60_000; !(await fetch(url).then(() => true, () => false)); await new Promise((r) => setTimeout(r, 200))) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`npm run dev did not listen on ${url}:\n${log}`)
    }
    const client = new Client({ name: 'create-templates-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(url))
    const result = await client.callTool({ name: 'greet', arguments: { name: 'dev' } })
    await client.close()
    return result
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit')
      process.kill(-child.pid!, 'SIGTERM')
      await exited
    }
  }
}
