/**
 * The @example blocks of the package's declarations (dist/**\/*.d.ts), as an editor shows them to a user:
 * each a ```ts fence in a doc comment, a program of its own, type-checked by consumer.test.ts like the
 * README's blocks.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { WORKER_CODE, type ReadmeBlock } from './readme-blocks.js'

export interface DocExample extends ReadmeBlock {
  /** The declaration file, relative to the package. */
  readonly file: string
  /** What the comment documents: the name declared on the line after it. */
  readonly declares: string
}

const declarations = (dir: string): string[] => readdirSync(dir, { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile() && e.name.endsWith('.d.ts'))
  .map((e) => join(e.parentPath, e.name))

/** `export declare function serve(` → serve; `tool<In ...>(` → tool; `export declare class McpHub` → McpHub. */
const DECLARED = /^\s*(?:export\s+)?(?:declare\s+)?(?:async\s+)?(?:function\s+|class\s+|const\s+)?([A-Za-z_$][\w$]*)/

export function docExamples(packageDir: string): DocExample[] {
  const examples: DocExample[] = []
  for (const path of declarations(join(packageDir, 'dist'))) {
    const text = readFileSync(path, 'utf8').split('\n')
    const file = relative(packageDir, path)
    for (let i = 0; i < text.length; i++) {
      if (!/^\s*\*\s*@example\s*$/.test(text[i]!)) continue
      const open = i + 1
      if (!/^\s*\*\s*```ts\s*$/.test(text[open] ?? '')) throw new Error(`${file}:${i + 1}: @example without a \`\`\`ts fence on the next line`)
      let close = open + 1
      while (close < text.length && !/^\s*\*\s*```\s*$/.test(text[close]!)) close++
      if (close === text.length) throw new Error(`${file}:${open + 1}: example never closed`)
      const code = text.slice(open + 1, close).map((l) => l.replace(/^\s*\* ?/, '')).join('\n')
      let end = close
      while (end < text.length && !text[end]!.includes('*/')) end++
      const declares = DECLARED.exec(text[end + 1] ?? '')?.[1] ?? '?'
      examples.push({
        file, declares, line: open + 1, code,
        lines: Array.from({ length: close - open - 1 }, (_, k) => open + 2 + k),
        workers: WORKER_CODE.test(code),
      })
      i = close
    }
  }
  return examples
}
