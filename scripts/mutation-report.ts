/**
 * Reads the reports of `npm run mutate` (the JSON reports named as arguments) and prints the mutation score
 * per folder, then every mutant no test killed, by file: the list to work through. Mutants that do not
 * compile (the type checker refused them) or that crash the runtime are not counted, as Stryker counts them.
 */
import { readFileSync } from 'node:fs'

interface Position { line: number; column: number }
interface Mutant {
  mutatorName: string
  replacement?: string
  status: 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending'
  location: { start: Position; end: Position }
}
interface Report { files: Record<string, { source: string; mutants: Mutant[] }> }

const paths = process.argv.length > 2 ? process.argv.slice(2) : ['reports/mutation/mutation.json']
const report: Report = { files: Object.assign({}, ...paths.map((p) => (JSON.parse(readFileSync(p, 'utf8')) as Report).files)) }

const tally = () => ({ killed: 0, survived: 0, noCoverage: 0, timeout: 0, errors: 0 })
type Tally = ReturnType<typeof tally>
const count = (t: Tally, m: Mutant) => {
  if (m.status === 'Killed') t.killed++
  else if (m.status === 'Survived') t.survived++
  else if (m.status === 'NoCoverage') t.noCoverage++
  else if (m.status === 'Timeout') t.timeout++
  else if (m.status === 'CompileError' || m.status === 'RuntimeError') t.errors++
}
const score = (t: Tally) => {
  const detected = t.killed + t.timeout
  const valid = detected + t.survived + t.noCoverage
  return valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)}%`
}

// A folder is a file's first two path segments: src/tasks, adapters/redis.
const folderOf = (file: string) => file.split('/').slice(0, 2).join('/')
const byFolder = new Map<string, Tally>()
const src = tally()
const all = tally()
const open: string[] = []
for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const folder = folderOf(file)
  if (!byFolder.has(folder)) byFolder.set(folder, tally())
  const lines = source.split('\n')
  const shown: string[] = []
  for (const m of mutants) {
    for (const t of [all, byFolder.get(folder), file.startsWith('src/') && src]) if (t) count(t, m)
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue
    const { start, end } = m.location
    const original = start.line === end.line ? lines[start.line - 1]!.slice(start.column - 1, end.column - 1) : `${lines[start.line - 1]!.slice(start.column - 1)}…`
    const one = (s: string) => s.replace(/\s+/g, ' ').slice(0, 90)
    shown.push(`  ${start.line}:${start.column} ${m.mutatorName}${m.status === 'NoCoverage' ? ' (no test reaches it)' : ''}: ${one(original)}  ->  ${one(m.replacement ?? '')}`)
  }
  if (shown.length > 0) open.push(`${file}`, ...shown)
}

const row = (name: string, t: Tally) =>
  `${name.padEnd(20)} ${score(t).padStart(7)} ${String(t.killed + t.timeout).padStart(7)} ${String(t.survived).padStart(9)} ${String(t.noCoverage).padStart(7)} ${String(t.errors).padStart(8)}`
console.log(`${'folder'.padEnd(20)} ${'score'.padStart(7)} ${'killed'.padStart(7)} ${'survived'.padStart(9)} ${'no cov'.padStart(7)} ${'invalid'.padStart(8)}`)
for (const [folder, t] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) console.log(row(folder, t))
console.log(row('src/ (all)', src))
console.log(row('everything', all))
console.log(open.length > 0 ? `\nMutants no test killed, by file:\n${open.join('\n')}` : '\nEvery mutant was killed.')
