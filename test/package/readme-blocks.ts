/**
 * The ```ts blocks of a Markdown file, as programs a consumer could paste. The convention is described in
 * consumer.test.ts; this only reads it.
 */

export interface ReadmeBlock {
  /** Line of the opening fence, 1-based: how a failure names the block. */
  line: number
  code: string
  /** README line of every line of `code`, so tsc's positions translate back to the README. */
  lines: number[]
  /** Checked with Worker types instead of Node's. */
  workers: boolean
}

const MARKER = /^<!--\s*consumer:\s*(\S+)\s*-->$/
// Importing the Workers adapter, or naming what it exports or a Worker global, makes a block Worker code.
export const WORKER_CODE = /from\s+['"]mcp-edge\/cloudflare['"]|\b(createWorker|McpHub|ExecutionContext|ExportedHandler|DurableObject\w*|KVNamespace|ScheduledController)\b/

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const text = markdown.split('\n')
  const blocks: ReadmeBlock[] = []
  for (let i = 0; i < text.length; i++) {
    const fence = /^```(\S*)/.exec(text[i]!)
    if (!fence) continue
    const open = i
    i++
    while (i < text.length && text[i]!.trimEnd() !== '```') i++
    if (i === text.length) throw new Error(`README.md:${open + 1}: code block never closed`)
    if (fence[1] !== 'ts' && fence[1] !== 'typescript') continue

    const marker = markerBefore(text, open)
    if (marker === 'skip') continue
    const own = { code: text.slice(open + 1, i).join('\n'), lines: Array.from({ length: i - open - 1 }, (_, k) => open + 2 + k) }
    if (marker === 'continues') {
      const previous = blocks.at(-1)
      if (!previous) throw new Error(`README.md:${open + 1}: "consumer: continues" with no checked block before it`)
      const code = `${previous.code}\n${own.code}`
      blocks.push({ line: open + 1, code, lines: [...previous.lines, ...own.lines], workers: WORKER_CODE.test(code) })
    } else {
      blocks.push({ line: open + 1, ...own, workers: WORKER_CODE.test(own.code) })
    }
  }
  return blocks
}

/** The consumer marker on the nearest non-blank line above a fence, if that line is one. */
function markerBefore(text: string[], fence: number): string | undefined {
  let j = fence - 1
  while (j >= 0 && text[j]!.trim() === '') j--
  const m = j >= 0 ? MARKER.exec(text[j]!.trim()) : null
  if (!m) return undefined
  if (m[1] !== 'skip' && m[1] !== 'continues') throw new Error(`README.md:${j + 1}: unknown marker "consumer: ${m[1]}" (skip or continues)`)
  return m[1]
}
