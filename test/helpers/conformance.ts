/** Runs the official conformance CLI (pinned in package.json) against a URL and collects its checks. */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = process.cwd()
const CLI = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')

export interface Check { id: string; status: string; errorMessage?: string }

/** The scenarios a requirement set lists for servers. */
const serverScenarios = (version: string): string[] => readFileSync(join(ROOT, `node_modules/@modelcontextprotocol/conformance/requirements/${version}.yaml`), 'utf8')
  .split('\nclient:')[0]!.split('\n').filter((l) => /^ {2}- /.test(l)).map((l) => l.trim().slice(2))

/** The frozen 2026-07-28 requirement set's server scenarios. */
export const REQUIRED = serverScenarios('2026-07-28')
/** The 2025-11-25 requirement set's (the stateful era's, answered with sessions no instance holds). */
const REQUIRED_2025 = serverScenarios('2025-11-25')

/** server-session-lifecycle (run, not scored, at 2025-11-25): a session is issued, ended by DELETE, then 404. */
const SESSION_CHECKS = ['server-session-initialized-accepted', 'server-session-delete-accepted', 'server-session-terminated-returns-404']

/**
 * What went wrong in a run of the 2025-11-25 requirement set: failed checks, required scenarios that did not
 * run, and session-lifecycle checks that did not succeed (they would be skipped without sessions).
 */
export const sessionProblems = (results: Map<string, Check[]>) => [
  ...problems(results),
  ...REQUIRED_2025.filter((s) => !results.has(s)).map((s) => `${s}: did not run`),
  ...statuses(results, 'server-session-lifecycle', SESSION_CHECKS).filter(([, status]) => status !== 'SUCCESS').map(([id, status]) => `${id}: ${status}`),
]

export const LISTEN_CHECKS = [
  'sep-2575-server-sends-subscription-ack',
  'sep-2575-server-tags-subscription-id',
  'sep-2575-server-honors-notification-filter',
  'sep-2575-server-sends-tools-list-changed-on-subscription',
  'sep-2575-server-sends-prompts-list-changed-on-subscription',
]

/** The tasks extension's scenarios; tasks-status-notifications is skipped by the suite itself (a placeholder). */
export const TASK_SCENARIOS = [
  'tasks-capability-negotiation', 'tasks-lifecycle', 'tasks-wire-fields', 'tasks-request-state-removal', 'tasks-mrtr-input',
  'tasks-request-headers', 'tasks-dispatch-and-envelope', 'tasks-required-task-error', 'tasks-mrtr-composition',
]

/** Checks of the tasks scenarios that did not succeed: none, and every scenario ran with some checks. */
export const taskProblems = (results: Map<string, Check[]>) => [
  ...TASK_SCENARIOS.filter((s) => !(results.get(s)?.length)).map((s) => `${s}: did not run`),
  ...problems(results, TASK_SCENARIOS, ['FAILURE', 'WARNING', 'SKIPPED', 'INFO']),
]

export function runConformance(url: string, args: string[]): Promise<{ code: number; output: string; results: Map<string, Check[]> }> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'server', '--url', url, ...args, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] })
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

export const summary = (output: string) => output.split('\n').filter((l) => /^[✓✗]|^Total|scored|^\s+[✓✗]/.test(l)).join('\n')

export const problems = (results: Map<string, Check[]>, scenarios?: string[], bad = ['FAILURE']) =>
  [...results].filter(([s]) => !scenarios || scenarios.includes(s))
    .flatMap(([s, checks]) => checks.filter((c) => bad.includes(c.status)).map((c) => `${s}: ${c.id} ${c.status} ${c.errorMessage ?? ''}`))

export const statuses = (results: Map<string, Check[]>, scenario: string, ids: string[]) =>
  ids.map((id) => [id, results.get(scenario)?.find((c) => c.id === id)?.status])
