/**
 * RFC 6570 URI templates, for matching resource URIs against resource templates. Levels 1-3 are matched
 * exactly (simple, reserved, fragment, label, path, path-parameter, query and query-continuation
 * expressions); the level-4 modifiers are accepted and match the whole (unsplit) value.
 */
export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  match(uri: string): Record<string, string> | undefined
}

interface Expression { op: string; vars: string[] }

const OPS: Record<string, { first: string; sep: string; named: boolean; chars: string }> = {
  // Lazy, so that a following optional expression ({.ext}, {#frag}) gets its part of the URI.
  '': { first: '', sep: ',', named: false, chars: "[^/?#,]*?" },
  '+': { first: '', sep: ',', named: false, chars: "[^,]*?" },
  '#': { first: '#', sep: ',', named: false, chars: "[^,]*?" },
  '.': { first: '.', sep: '.', named: false, chars: "[^/?#.]*" },
  '/': { first: '/', sep: '/', named: false, chars: "[^/?#]*" },
  ';': { first: ';', sep: ';', named: true, chars: "[^/?#;]*" },
  '?': { first: '?', sep: '&', named: true, chars: "[^#&]*" },
  '&': { first: '&', sep: '&', named: true, chars: "[^#&]*" },
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function parseUriTemplate(template: string): UriTemplate {
  const parts: (string | Expression)[] = []
  let rest = template
  while (rest.length > 0) {
    const open = rest.indexOf('{')
    if (open < 0) { parts.push(rest); break }
    if (open > 0) parts.push(rest.slice(0, open))
    const close = rest.indexOf('}', open)
    if (close < 0) throw new Error(`URI template ${template}: unclosed "{"`)
    const body = rest.slice(open + 1, close)
    // An empty body has no operator: ''.includes('') would say it has.
    const op = body !== '' && '+#./;?&'.includes(body[0]!) ? body[0]! : ''
    const vars = body.slice(op.length).split(',').map((v) => v.replace(/(\*|:\d+)$/, ''))
    if (vars.some((v) => !/^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/.test(v))) {
      throw new Error(`URI template ${template}: invalid expression {${body}}`)
    }
    parts.push({ op, vars })
    rest = rest.slice(close + 1)
  }

  const names: string[] = []
  let source = ''
  for (const part of parts) {
    if (typeof part === 'string') { source += escape(part); continue }
    const spec = OPS[part.op]!
    part.vars.forEach((name, i) => {
      names.push(name)
      const prefix = escape(i === 0 ? spec.first : spec.sep)
      const value = `(${spec.chars})`
      const piece = spec.named
        ? `${prefix}${escape(name)}${part.op === ';' ? `(?:=${value})?` : `=${value}`}`
        : `${prefix}${value}`
      // An undefined variable expands to nothing, prefix included, so any prefixed piece may be absent.
      source += spec.first !== '' || i > 0 ? `(?:${piece})?` : piece
    })
  }
  const regex = new RegExp(`^${source}$`)

  return {
    template,
    variables: names,
    match(uri) {
      const m = regex.exec(uri)
      if (!m) return undefined
      const out: Record<string, string> = {}
      for (let i = 0; i < names.length; i++) {
        const raw = m[i + 1]
        if (raw === undefined) continue
        try {
          out[names[i]!] = decodeURIComponent(raw)
        } catch {
          return undefined
        }
      }
      return out
    },
  }
}
