/**
 * A JSON Schema (draft 2020-12) validator that compiles a schema once into plain closures: no code generation, so
 * it runs where eval is forbidden (Workers), and a valid value builds no strings at all. `format` is an annotation,
 * as 2020-12 makes it by default; remote `$ref`s are not fetched; `$dynamicRef` resolves like `$ref`.
 */
import { codePoints, jsonEqual } from './equal.js'
import { SchemaIndex } from './refs.js'

export interface Issue {
  /** Where in the value, as a JSON Pointer ('' for the value itself). */
  readonly at: string
  readonly message: string
}

/** The annotations `unevaluatedProperties` and `unevaluatedItems` read: what the other keywords looked at. */
interface Seen { props: Set<string>; items: number; contained: Set<number> }
/** `out` is null on the first, fast pass: it only answers yes or no, and builds no paths. */
type Check = (v: unknown, at: string, out: Issue[] | null, seen: Seen | null) => boolean
type Obj = Record<string, unknown>

export const MAX_ISSUES = 20

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: Number.isInteger,
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: Array.isArray,
  object: isObj,
}
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
const fail = (out: Issue[] | null, at: string, message: string): false => (out?.push({ at, message }), false)
const child = (out: Issue[] | null, at: string, key: string | number) => (out ? `${at}/${key}` : '')
/** After a failure: whether to stop here (a yes-or-no pass, or issues enough). */
const done = (out: Issue[] | null) => !out || out.length >= MAX_ISSUES
const fresh = (): Seen => ({ props: new Set(), items: 0, contained: new Set() })
const pass: Check = () => true
const deny: Check = (_v, at, out) => fail(out, at, 'no value is allowed here')
/** `additionalProperties: false` and its kind: said of the object, naming the property. */
const extra = (check: Check, v: Obj, k: string, at: string, out: Issue[] | null) =>
  check === deny ? fail(out, at, `unexpected property "${k}"`) : check(v[k], child(out, at, k), out, null)
const short = (v: unknown) => { const s = JSON.stringify(v); return s.length > 80 ? `${s.slice(0, 77)}...` : s }

function merge(into: Seen | null, from: Seen | null): void {
  if (!into || !from) return
  for (const p of from.props) into.props.add(p)
  into.items = Math.max(into.items, from.items)
  for (const i of from.contained) into.contained.add(i)
}

/** Runs checks in turn; with issues wanted it goes on past a failure, up to MAX_ISSUES. */
function every(checks: Check[]): Check {
  if (checks.length === 0) return pass
  if (checks.length === 1) return checks[0]!
  return (v, at, out, seen) => {
    let ok = true
    for (const c of checks) {
      if (!c(v, at, out, seen)) {
        ok = false
        if (done(out)) return false
      }
    }
    return ok
  }
}

/** Compiles `schema`; the result returns no issues for a valid value. Throws on a schema it cannot follow. */
export function compileJsonSchema(schema: unknown): (value: unknown) => Issue[] {
  const root = new Compiler(schema).schema(schema)
  return (value) => {
    if (root(value, '', null, null)) return []
    const out: Issue[] = []
    root(value, '', out, null)
    return out
  }
}

class Compiler {
  readonly #index: SchemaIndex
  readonly #done = new Map<object, Check>()

  constructor(root: unknown) {
    this.#index = new SchemaIndex(root)
  }

  /**
   * `chain`: the schemas that apply to this same value on the way here (through `$ref`, `allOf`, `not`...). A
   * schema met again on that chain would call itself for ever on every value, so it is refused here.
   */
  schema(s: unknown, chain?: ReadonlySet<object>): Check {
    if (s === true) return pass
    if (s === false) return deny
    if (!isObj(s)) throw new Error(`a schema must be an object or a boolean, not ${short(s)}`)
    if (chain?.has(s)) throw new Error('the schema refers to itself without descending into the value')
    const known = this.#done.get(s)
    if (known) return known
    // A schema that refers to itself meets this forwarder while it is being compiled.
    let real: Check = pass
    this.#done.set(s, (v, at, out, seen) => real(v, at, out, seen))
    real = this.#node(s, new Set(chain).add(s))
    this.#done.set(s, real)
    return real
  }

  #node(s: Obj, chain: ReadonlySet<object>): Check {
    const base = this.#index.base(s)
    const refs = [s.$ref, s.$dynamicRef].filter((r): r is string => typeof r === 'string')
    const checks = [
      ...refs.map((r) => this.schema(this.#index.resolve(r, base), chain)),
      ...values(s),
      ...numbers(s),
      ...strings(s),
      ...this.#arrays(s),
      ...this.#objects(s, chain),
      ...this.#applicators(s, chain),
    ]
    const all = every(checks)
    const unevaluated = this.#unevaluated(s)
    if (!unevaluated) return all
    return (v, at, out, seen) => {
      const mine = fresh()
      let ok = all(v, at, out, mine)
      if (ok || !done(out)) ok = unevaluated(v, at, out, mine) && ok
      // Annotations of a schema that failed go up too: then its parent fails, or (anyOf, oneOf, if) drops them.
      merge(seen, mine)
      return ok
    }
  }

  #arrays(s: Obj): Check[] {
    const checks: Check[] = []
    // Before 2020-12, an array of `items` did what `prefixItems` does now, and `additionalItems` what `items` does.
    const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []).map((p) => this.schema(p))
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items
    const restCheck = rest === undefined ? undefined : this.schema(rest)
    if (prefix.length || restCheck) {
      checks.push(onArrays((v, at, out, seen) => {
        let ok = true
        for (let i = 0; i < v.length; i++) {
          const check = i < prefix.length ? prefix[i]! : restCheck
          if (!check) break
          if (!check(v[i], child(out, at, i), out, null)) {
            ok = false
            if (done(out)) return false
          }
        }
        if (seen) seen.items = Math.max(seen.items, restCheck ? Infinity : Math.min(v.length, prefix.length))
        return ok
      }))
    }
    if (s.contains !== undefined) {
      const contains = this.schema(s.contains)
      const min = typeof s.minContains === 'number' ? s.minContains : 1
      const max = typeof s.maxContains === 'number' ? s.maxContains : Infinity
      checks.push(onArrays((v, at, out, seen) => {
        let n = 0
        for (let i = 0; i < v.length; i++) {
          if (contains(v[i], '', null, null)) { n++; seen?.contained.add(i) }
        }
        if (n < min) return fail(out, at, `must contain at least ${min} matching item${min === 1 ? '' : 's'}, has ${n}`)
        return n <= max || fail(out, at, `must contain at most ${max} matching items, has ${n}`)
      }))
    }
    if (typeof s.minItems === 'number') {
      const min = s.minItems
      checks.push(onArrays((v, at, out) => v.length >= min || fail(out, at, `must have at least ${min} items`)))
    }
    if (typeof s.maxItems === 'number') {
      const max = s.maxItems
      checks.push(onArrays((v, at, out) => v.length <= max || fail(out, at, `must have at most ${max} items`)))
    }
    if (s.uniqueItems === true) {
      checks.push(onArrays((v, at, out) => {
        for (let i = 1; i < v.length; i++) {
          for (let j = 0; j < i; j++) if (jsonEqual(v[i], v[j])) return fail(out, at, `items ${j} and ${i} are equal; items must be unique`)
        }
        return true
      }))
    }
    return checks
  }

  #objects(s: Obj, chain: ReadonlySet<object>): Check[] {
    const checks: Check[] = []
    if (Array.isArray(s.required)) {
      const required = s.required as string[]
      checks.push(onObjects((v, at, out) => {
        let ok = true
        for (const k of required) {
          if (!Object.hasOwn(v, k)) {
            ok = fail(out, at, `missing required property "${k}"`)
            if (!out) return false
          }
        }
        return ok
      }))
    }
    const properties = Object.entries(isObj(s.properties) ? s.properties : {}).map(([k, p]) => [k, this.schema(p)] as const)
    const patterns = Object.entries(isObj(s.patternProperties) ? s.patternProperties : {}).map(([p, sub]) => [regex(p), this.schema(sub)] as const)
    const additional = s.additionalProperties === undefined ? undefined : this.schema(s.additionalProperties)
    if (properties.length || patterns.length || additional) {
      const named = new Set(properties.map(([k]) => k))
      checks.push(onObjects((v, at, out, seen) => {
        let ok = true
        for (const [k, check] of properties) {
          if (!Object.hasOwn(v, k)) continue
          seen?.props.add(k)
          if (!check(v[k], child(out, at, k), out, null)) {
            ok = false
            if (done(out)) return false
          }
        }
        if (!patterns.length && !additional) return ok
        for (const k of Object.keys(v)) {
          let matched = named.has(k)
          for (const [re, check] of patterns) {
            if (!re.test(k)) continue
            matched = true
            seen?.props.add(k)
            if (!check(v[k], child(out, at, k), out, null)) {
              ok = false
              if (done(out)) return false
            }
          }
          if (matched || !additional) continue
          seen?.props.add(k)
          if (!extra(additional, v, k, at, out)) {
            ok = false
            if (done(out)) return false
          }
        }
        return ok
      }))
    }
    if (s.propertyNames !== undefined) {
      const names = this.schema(s.propertyNames)
      checks.push(onObjects((v, at, out) => {
        for (const k of Object.keys(v)) if (!names(k, '', null, null)) return fail(out, at, `property name "${k}" is not allowed`)
        return true
      }))
    }
    if (typeof s.minProperties === 'number') {
      const min = s.minProperties
      checks.push(onObjects((v, at, out) => Object.keys(v).length >= min || fail(out, at, `must have at least ${min} properties`)))
    }
    if (typeof s.maxProperties === 'number') {
      const max = s.maxProperties
      checks.push(onObjects((v, at, out) => Object.keys(v).length <= max || fail(out, at, `must have at most ${max} properties`)))
    }
    // `dependencies` is the older name for both: a list of names, or a schema.
    const dependent = { ...(isObj(s.dependencies) ? s.dependencies : {}), ...(isObj(s.dependentRequired) ? s.dependentRequired : {}), ...(isObj(s.dependentSchemas) ? s.dependentSchemas : {}) }
    for (const [k, dep] of Object.entries(dependent)) {
      if (Array.isArray(dep)) {
        checks.push(onObjects((v, at, out) => {
          if (!Object.hasOwn(v, k)) return true
          const missing = (dep as string[]).find((d) => !Object.hasOwn(v, d))
          return missing === undefined || fail(out, at, `property "${k}" requires property "${missing}"`)
        }))
      } else {
        const check = this.schema(dep, chain)
        checks.push(onObjects((v, at, out, seen) => !Object.hasOwn(v, k) || check(v, at, out, seen)))
      }
    }
    return checks
  }

  #applicators(s: Obj, chain: ReadonlySet<object>): Check[] {
    const checks: Check[] = []
    const list = (k: string) => (Array.isArray(s[k]) ? (s[k] as unknown[]).map((x) => this.schema(x, chain)) : undefined)
    const allOf = list('allOf')
    if (allOf) checks.push(every(allOf))
    const anyOf = list('anyOf')
    if (anyOf) {
      checks.push((v, at, out, seen) => {
        let ok = false
        for (const branch of anyOf) {
          const mine = seen && fresh()
          if (!branch(v, at, null, mine)) continue
          ok = true
          merge(seen, mine)
          // Every branch that matches adds its annotations; without anyone reading them the first match is enough.
          if (!seen) break
        }
        return ok || fail(out, at, 'must match at least one of the schemas in anyOf')
      })
    }
    const oneOf = list('oneOf')
    if (oneOf) {
      checks.push((v, at, out, seen) => {
        let n = 0
        let matched: Seen | null = null
        for (const branch of oneOf) {
          const mine = seen && fresh()
          if (branch(v, at, null, mine)) { n++; matched = mine }
        }
        merge(seen, matched)
        return n === 1 || fail(out, at, `must match exactly one of the schemas in oneOf, matches ${n}`)
      })
    }
    if (s.not !== undefined) {
      const not = this.schema(s.not, chain)
      checks.push((v, at, out) => !not(v, at, null, null) || fail(out, at, 'must not match the schema in "not"'))
    }
    if (s.if !== undefined) {
      const test = this.schema(s.if, chain)
      const then = s.then === undefined ? pass : this.schema(s.then, chain)
      const otherwise = s.else === undefined ? pass : this.schema(s.else, chain)
      checks.push((v, at, out, seen) => {
        const mine = seen && fresh()
        if (!test(v, at, null, mine)) return otherwise(v, at, out, seen)
        merge(seen, mine)
        return then(v, at, out, seen)
      })
    }
    return checks
  }

  #unevaluated(s: Obj): Check | undefined {
    if (s.unevaluatedProperties === undefined && s.unevaluatedItems === undefined) return undefined
    const props = s.unevaluatedProperties === undefined ? undefined : this.schema(s.unevaluatedProperties)
    const items = s.unevaluatedItems === undefined ? undefined : this.schema(s.unevaluatedItems)
    return (v, at, out, seen) => {
      let ok = true
      if (props && isObj(v)) {
        for (const k of Object.keys(v)) {
          if (seen!.props.has(k)) continue
          seen!.props.add(k)
          if (!extra(props, v, k, at, out)) {
            ok = false
            if (done(out)) return false
          }
        }
      }
      if (items && Array.isArray(v)) {
        for (let i = seen!.items; i < v.length; i++) {
          if (seen!.contained.has(i)) continue
          if (!items(v[i], child(out, at, i), out, null)) {
            ok = false
            if (done(out)) return false
          }
        }
        seen!.items = Infinity
      }
      return ok
    }
  }
}

function values(s: Obj): Check[] {
  const checks: Check[] = []
  if (s.type !== undefined) {
    const names = (Array.isArray(s.type) ? s.type : [s.type]) as string[]
    for (const n of names) if (!Object.hasOwn(TYPES, n)) throw new Error(`unknown type ${short(n)}`)
    const tests = names.map((n) => TYPES[n]!)
    const expected = `expected ${names.join(' or ')}`
    checks.push((v, at, out) => {
      for (const t of tests) if (t(v)) return true
      return fail(out, at, `${expected}, got ${typeOf(v)}`)
    })
  }
  if (Array.isArray(s.enum)) {
    const allowed = s.enum
    checks.push((v, at, out) => {
      for (const e of allowed) if (jsonEqual(e, v)) return true
      return fail(out, at, `must be one of ${short(allowed)}`)
    })
  }
  if (s.const !== undefined) {
    const c = s.const
    checks.push((v, at, out) => jsonEqual(c, v) || fail(out, at, `must be ${short(c)}`))
  }
  return checks
}

function numbers(s: Obj): Check[] {
  const bound = (k: string, ok: (v: number, b: number) => boolean, says: string): Check[] => {
    const b = s[k]
    if (typeof b !== 'number') return []
    return [(v, at, out) => typeof v !== 'number' || ok(v, b) || fail(out, at, `must be ${says} ${b}`)]
  }
  return [
    ...bound('minimum', (v, b) => v >= b, '>='),
    ...bound('maximum', (v, b) => v <= b, '<='),
    ...bound('exclusiveMinimum', (v, b) => v > b, '>'),
    ...bound('exclusiveMaximum', (v, b) => v < b, '<'),
    // A quotient within rounding error of a whole number counts: 0.3 is a multiple of 0.1.
    ...bound('multipleOf', (v, b) => { const q = v / b; return Number.isFinite(q) && Math.abs(q - Math.round(q)) <= Number.EPSILON * Math.max(1, Math.abs(q)) }, 'a multiple of'),
  ]
}

function strings(s: Obj): Check[] {
  const checks: Check[] = []
  const min = s.minLength
  const max = s.maxLength
  if (typeof min === 'number') checks.push(onStrings((v, at, out) => codePoints(v) >= min || fail(out, at, `must be at least ${min} characters long`)))
  if (typeof max === 'number') checks.push(onStrings((v, at, out) => codePoints(v) <= max || fail(out, at, `must be at most ${max} characters long`)))
  if (typeof s.pattern === 'string') {
    const re = regex(s.pattern)
    checks.push(onStrings((v, at, out) => re.test(v) || fail(out, at, `must match the pattern ${re.source}`)))
  }
  return checks
}

function regex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u')
  } catch {
    throw new Error(`invalid pattern ${short(pattern)}`)
  }
}

type On<T> = (v: T, at: string, out: Issue[] | null, seen: Seen | null) => boolean
const onArrays = (check: On<unknown[]>): Check => (v, at, out, seen) => !Array.isArray(v) || check(v, at, out, seen)
const onObjects = (check: On<Obj>): Check => (v, at, out, seen) => !isObj(v) || check(v, at, out, seen)
const onStrings = (check: On<string>): Check => (v, at, out, seen) => typeof v !== 'string' || check(v, at, out, seen)
