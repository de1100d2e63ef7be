// Node 20 lacks fs.globSync, which the conformance CLI imports at load time (it is used only by its
// tier-check command). Re-export node:fs and add a minimal globSync so the CLI loads on Node 20.
import * as fs from 'node:fs'
import path from 'node:path'

export * from 'node:fs'
export default fs

function toRegExp(pattern) {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '*' && pattern[i + 1] === '*') { re += '.*'; i++; if (pattern[i + 1] === '/') i++ }
    else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd()
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).map(toRegExp)
  const entries = fs.readdirSync(cwd, { recursive: true }).map((p) => p.split(path.sep).join('/'))
  return entries.filter((p) => patterns.some((re) => re.test(p)))
}
