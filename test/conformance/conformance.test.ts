/**
 * The official conformance suite (@modelcontextprotocol/conformance, pinned) against the Node server:
 * the frozen 2026-07-28 requirement set with zero failures and no expected-failures file, then everything
 * the suite has for 2026-07-28, with its summary printed.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../adapters/node/index.js'
import { startEverything } from '../helpers/server.js'

const CLI = join(process.cwd(), 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const REGISTER = join(process.cwd(), 'test/conformance/register.mjs')
const REQUIRED = readFileSync(join(process.cwd(), 'node_modules/@modelcontextprotocol/conformance/requirements/2026-07-28.yaml'), 'utf8')
  .split('\nclient:')[0]!.split('\n').filter((l) => /^ {2}- /.test(l)).map((l) => l.trim().slice(2))

interface Check { id: string; status: string; errorMessage?: string }

let running: RunningServer
beforeAll(async () => {
  running = await startEverything()
})
afterAll(() => running.close())

function runSuite(args: string[]): Promise<{ code: number; output: string; results: Map<string, Check[]> }> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
  // The DNS-rebinding scenario needs a loopback name in the URL.
  const url = `http://localhost:${running.port}/mcp`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER, CLI, 'server', '--url', url, ...args, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c) => (output += c))
    child.stderr.on('data', (c) => (output += c))
    child.on('error', reject)
    child.on('close', (code) => {
      const results = new Map<string, Check[]>()
      for (const dir of readdirSync(out)) {
        const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')
        results.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')))
      }
      resolve({ code: code ?? 1, output, results })
    })
  })
}

const summary = (output: string) => output.split('\n').filter((l) => /^[✓✗]|^Total|scored|^\s+[✓✗]/.test(l)).join('\n')
const failures = (results: Map<string, Check[]>, scenarios?: string[], bad = ['FAILURE']) =>
  [...results].filter(([s]) => !scenarios || scenarios.includes(s))
    .flatMap(([s, checks]) => checks.filter((c) => bad.includes(c.status)).map((c) => `${s}: ${c.id} ${c.status} ${c.errorMessage ?? ''}`))

const LISTEN_CHECKS = [
  'sep-2575-server-sends-subscription-ack',
  'sep-2575-server-tags-subscription-id',
  'sep-2575-server-honors-notification-filter',
  'sep-2575-server-sends-tools-list-changed-on-subscription',
  'sep-2575-server-sends-prompts-list-changed-on-subscription',
]

describe('official conformance suite', () => {
  it('passes every scenario 2026-07-28 requires, with no expected-failures file', async () => {
    const { code, output, results } = await runSuite(['--requirements', '2026-07-28'])
    console.log(summary(output))
    expect(failures(results, REQUIRED)).toEqual([])
    expect(REQUIRED.filter((s) => !results.has(s))).toEqual([])
    expect(code).toBe(0)
  }, 240_000)

  it('runs the whole suite at 2026-07-28: no failures, no warnings, listen checks passed (not skipped)', async () => {
    const { output, results } = await runSuite(['--suite', 'all', '--spec-version', '2026-07-28'])
    console.log(summary(output))
    expect(failures(results, undefined, ['FAILURE', 'WARNING'])).toEqual([])
    const stateless = results.get('server-stateless') ?? []
    expect(LISTEN_CHECKS.map((id) => [id, stateless.find((c) => c.id === id)?.status])).toEqual(LISTEN_CHECKS.map((id) => [id, 'SUCCESS']))
  }, 240_000)
})
