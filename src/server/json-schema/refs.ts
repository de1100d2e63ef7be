/**
 * Where `$ref` points: every schema resource (`$id`) and anchor of one schema, indexed once at compile time.
 * Only references inside the schema are followed; there is no fetching of remote schemas.
 */
type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
// A schema without `$id` still needs a base for relative references to resolve against.
const DEFAULT_BASE = 'https://mcp-edge.invalid/schema'
// The keywords whose values are schemas (one, a map of them, a list of them): the walk visits nothing else, so an
// `$id` inside a `const` or an `enum` value is data, not a resource.
const ONE = ['additionalProperties', 'propertyNames', 'contains', 'not', 'if', 'then', 'else', 'items', 'additionalItems', 'unevaluatedItems', 'unevaluatedProperties']
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']

export class SchemaIndex {
  /** The base URI each schema object's own references resolve against. */
  readonly #bases = new Map<object, string>()
  /** Resource URI, or `URI#anchor`, to the schema there. */
  readonly #targets = new Map<string, unknown>()

  constructor(root: unknown) {
    this.#targets.set(DEFAULT_BASE, root)
    this.#add(root, DEFAULT_BASE)
  }

  base(schema: object): string {
    return this.#bases.get(schema) ?? DEFAULT_BASE
  }

  resolve(ref: string, base: string): unknown {
    const url = join(ref, base)
    const fragment = decodeURIComponent(url.hash.slice(1))
    url.hash = ''
    const doc = this.#targets.get(url.href)
    const found = doc === undefined ? undefined : fragment === '' ? doc : fragment.startsWith('/') ? pointer(doc, fragment) : this.#targets.get(`${url.href}#${fragment}`)
    if (found === undefined) throw new Error(`cannot resolve $ref "${ref}": only references inside the schema are followed`)
    return found
  }

  #add(node: unknown, base: string): void {
    if (!isObj(node) || this.#bases.has(node)) return
    if (typeof node.$id === 'string') {
      const url = join(node.$id, base)
      url.hash = ''
      base = url.href
      this.#targets.set(base, node)
    }
    this.#bases.set(node, base)
    for (const anchor of [node.$anchor, node.$dynamicAnchor]) if (typeof anchor === 'string') this.#targets.set(`${base}#${anchor}`, node)
    for (const k of ONE) this.#add(node[k], base)
    for (const k of MAP) if (isObj(node[k])) for (const v of Object.values(node[k])) this.#add(v, base)
    for (const k of LIST) if (Array.isArray(node[k])) for (const v of node[k]) this.#add(v, base)
  }
}

function join(ref: string, base: string): URL {
  try {
    return new URL(ref, base)
  } catch {
    throw new Error(`cannot resolve $ref or $id "${ref}" against "${base}"`)
  }
}

/** RFC 6901, over the schema's own JSON. */
function pointer(doc: unknown, path: string): unknown {
  let at = doc
  for (const raw of path.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined
    at = (at as Obj)[key]
  }
  return at
}
