/** Writes one benchmark's section of BENCHMARKS.md, leaving the other sections as they are. */
import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'

const FILE = new URL('../BENCHMARKS.md', import.meta.url)

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU'
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`
}

export function writeSection(name: string, body: string): void {
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const block = `${start}\n${body.trim()}\n${end}`
  let text = existsSync(FILE)
    ? readFileSync(FILE, 'utf8')
    : '# Benchmarks\n\nFigures from `npm run bench` (about 10 minutes; one script per benchmark in `bench/`, each also runnable alone).\nEach section says how it was made, on which machine and when. Throughput and latency figures come from a load\ngenerator sharing the machine with the servers, so compare contenders within a table, not across machines.\n'
  const at = text.indexOf(start)
  text = at >= 0 ? text.slice(0, at) + block + text.slice(text.indexOf(end) + end.length) : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(FILE, text)
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
export const fmt = (n: number, digits = 1) => n.toFixed(digits)
