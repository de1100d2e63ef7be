/**
 * The README's Lambda path as a user takes it, in a project with the packed package installed: the README's
 * lambda.ts, bundled by the README's own esbuild command line, served by the README's own mcp-edge-lambda
 * command line (the installed bin) under the real runtime client, answering the SDK client, with Redis. And
 * how that command fails: without aws-lambda-ric, without its native part, with a bundle built without the
 * banner; each time at once, with the fix.
 */
import { spawn } from 'node:child_process'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, delimiter, dirname, join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ownRedis } from '../helpers/redis.js'
import { installPacked, linkFromRepository, run, type Consumer } from './install-packed.js'

const section = /^## Deploy to AWS Lambda\n([\s\S]*?)^## /m.exec(readFileSync('README.md', 'utf8'))?.[1] ?? ''
const lambdaTs = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
/** A command line of the section, without its comment. */
const line = (command: string) => new RegExp(`^${command} .*$`, 'm').exec(section)?.[0].replace(/\s+#.*$/, '') ?? ''
const build = line('npx esbuild')
const serve = line('npx mcp-edge-lambda')
const BANNER = /\s+"--banner:js=[^"]*"/

let consumer: Consumer
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}` }

/** A shell command line in the consumer project, in a process group of its own, with what it printed. */
function shell(command: string, extraEnv: Record<string, string> = {}) {
  const child = spawn('bash', ['-c', command], { cwd: consumer.dir, env: { ...env, ...extraEnv }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve))
  /** The URL the command printed it listens on, or its output if it exited first. */
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /^mcp-edge-lambda: (http:\/\/\S+) runs /m.exec(stdout)
      if (m) resolve(m[1]!)
    })
    void exit.then((code) => reject(new Error(`exited (${code}) before listening:\n${stdout}${stderr}`)))
  })
  url.catch(() => {})
  const exited = exit.then((code) => ({ code, stdout, stderr }))
  return {
    exit: exited,
    url,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {}
      return exited
    },
  }
}

beforeAll(async () => {
  consumer = await installPacked()
  writeFileSync(join(consumer.dir, 'lambda.ts'), lambdaTs)
}, 180_000)
afterAll(() => consumer?.remove())

describe("the README's Lambda build, on the installed mcp-edge-lambda", () => {
  it('the README gives the function, its esbuild command line with the banner, and the command to run it', () => {
    expect(lambdaTs).toMatch(/^\/\/ lambda\.ts\n/)
    expect(build).toMatch(/^npx esbuild lambda\.ts .*--outfile=dist\/index\.mjs/)
    expect(build).toMatch(BANNER)
    expect(serve).toBe('npx mcp-edge-lambda dist/index.mjs')
  })

  it('builds with that command line; without aws-lambda-ric installed, the command says how to install it', async () => {
    await run('bash', ['-c', build], { cwd: consumer.dir, env })
    const usage = await shell('node_modules/.bin/mcp-edge-lambda').exit
    expect(usage.code).toBe(1)
    expect(usage.stderr).toMatch(/^mcp-edge-lambda: usage: mcp-edge-lambda <bundle>/)
    const missing = await shell(`${serve} --port 0`).exit
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('mcp-edge-lambda: aws-lambda-ric is not installed')
    expect(missing.stderr).toContain('npm install -D aws-lambda-ric')
    expect(missing.stderr).toContain('npm approve-scripts aws-lambda-ric && npm rebuild aws-lambda-ric')
  }, 60_000)

  it('with aws-lambda-ric but not its native part (its install script not run), says how to build it', async () => {
    const ric = join(consumer.dir, 'node_modules/aws-lambda-ric')
    const source = join('node_modules/aws-lambda-ric')
    cpSync(source, ric, { recursive: true, filter: (file) => !/\.node$/.test(file) && !['deps', 'build'].includes(basename(file)) })
    const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }
    for (const dep of Object.keys(manifest.dependencies ?? {})) linkFromRepository(consumer.dir, dep)
    try {
      const unbuilt = await shell(`${serve} --port 0`).exit
      expect(unbuilt.code).toBe(1)
      expect(unbuilt.stderr).toContain("mcp-edge-lambda: aws-lambda-ric's native part is not built")
      expect(unbuilt.stderr).toContain('npm approve-scripts aws-lambda-ric && npm rebuild aws-lambda-ric')
    } finally {
      rmSync(ric, { recursive: true, force: true })
    }
    linkFromRepository(consumer.dir, 'aws-lambda-ric')
  }, 60_000)

  it('serves the bundle under the real runtime client: a tools/call, and a listen through Redis', async () => {
    const redis = await ownRedis()
    const fn = shell(`${serve} --port 0 --instances 1`, { REDIS_URL: redis.url })
    const watcher = new Redis(redis.url)
    try {
      const url = await fn.url
      const client = new Client({ name: 'lambda-bin-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      expect(await client.callTool({ name: 'get_weather', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'Sunny' }] })
      // The listen holds the one instance; a second client call would start another (a cold start).
      const subscription = await client.listen({ toolsListChanged: true })
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true })
      // The bundled ioredis connected and subscribed in the function's process.
      expect((await watcher.pubsub('CHANNELS', '*') as string[]).length).toBeGreaterThan(0)
      await subscription.close()
      await client.close()
    } finally {
      watcher.disconnect()
      await fn.stop()
      await redis.stop()
    }
    const { stdout } = await fn.exit
    expect(stdout).toMatch(/^mcp-edge-lambda: http:\/\/127\.0\.0\.1:\d+\/mcp runs index\.handler from dist \(1 instance, 30 s timeout\)$/m)
  }, 60_000)

  it('a bundle built without the banner: the command stops at once, saying which banner to add', async () => {
    await run('bash', ['-c', build.replace(BANNER, '').replace('--outfile=dist/', '--outfile=no-banner/')], { cwd: consumer.dir, env })
    const failed = await shell(`${serve.replace('dist/', 'no-banner/')} --port 0`).exit
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/^mcp-edge-lambda: index\.handler failed to load: \S+: Dynamic require of "\w+" is not supported/m)
    expect(failed.stderr).toContain(`--banner:js="${/"--banner:js=([^"]*)"/.exec(build)?.[1]}"`)
  }, 60_000)
})
