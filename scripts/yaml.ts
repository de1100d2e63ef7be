/**
 * The YAML template.yaml is written in, read without a YAML library: block maps and lists nested by
 * indentation, flow lists of scalars (`[a, b]`), plain, 'single' and "double" quoted scalars, comments.
 * CloudFormation tags (`!Ref X`) stay text. Anything else (block scalars, anchors, flow maps) is refused,
 * so a template this cannot read fails loudly instead of being read wrong.
 */
export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml }

interface Line { indent: number; text: string; n: number }

export function parseYaml(source: string): Yaml {
  const lines: Line[] = []
  source.split('\n').forEach((raw, i) => {
    const text = withoutComment(raw).trimEnd()
    if (text.trim() !== '') lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), n: i + 1 })
  })
  let i = 0
  const fail = (line: Line | undefined, why: string): never => {
    throw new Error(`template line ${line?.n ?? 'end'}: ${why}`)
  }

  const block = (indent: number): Yaml => {
    if (lines[i]!.text.startsWith('- ')) {
      const list: Yaml[] = []
      while (lines[i]?.indent === indent && lines[i]!.text.startsWith('- ')) list.push(scalar(lines[i]!.text.slice(2).trim(), lines[i++]))
      return list
    }
    const map: Record<string, Yaml> = {}
    while (lines[i]?.indent === indent) {
      const line = lines[i++]!
      const m = /^([^\s:'"[\]{}#][^:]*?):(?:\s+(.*))?$/.exec(line.text) ?? fail(line, `expected "key: value": ${line.text}`)
      const next = lines[i]
      map[m[1]!] = m[2] !== undefined ? scalar(m[2], line)
        : next && (next.indent > indent || (next.indent === indent && next.text.startsWith('- '))) ? block(next.indent)
        : null
    }
    if (lines[i] && lines[i]!.indent > indent) fail(lines[i], 'unexpected indentation')
    return map
  }

  const scalar = (text: string, line: Line | undefined): Yaml => {
    if (/^[|>&*{]/.test(text) || text.startsWith('- ')) fail(line, `not read here: ${text}`)
    if (text.startsWith('[')) {
      if (!text.endsWith(']')) fail(line, `a flow list on one line: ${text}`)
      const inner = text.slice(1, -1).trim()
      return inner === '' ? [] : inner.split(',').map((item) => scalar(item.trim(), line))
    }
    if (text.startsWith('"')) return JSON.parse(text) as string
    if (text.startsWith("'")) return text.endsWith("'") ? text.slice(1, -1).replaceAll("''", "'") : fail(line, `unclosed quote: ${text}`)
    if (text === 'true' || text === 'false') return text === 'true'
    if (text === 'null' || text === '~') return null
    if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text)
    return text
  }

  const root = lines.length === 0 ? null : block(lines[0]!.indent)
  if (i < lines.length) fail(lines[i], 'unexpected indentation')
  return root
}

/** The line without its comment: a # at the start or after a space, outside quotes. */
function withoutComment(line: string): string {
  let quote = ''
  for (let k = 0; k < line.length; k++) {
    const c = line[k]!
    if (quote) {
      if (c === quote) quote = ''
    } else if (c === '"' || c === "'") quote = c
    else if (c === '#' && (k === 0 || /\s/.test(line[k - 1]!))) return line.slice(0, k)
  }
  return line
}
