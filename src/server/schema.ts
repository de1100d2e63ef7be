import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import { compileJsonSchema, MAX_ISSUES } from './json-schema/compile.js'

/**
 * The subset of Standard Schema (https://standardschema.dev) this package relies on: `validate`, and, for
 * advertising a schema in `tools/list`, the Standard JSON Schema converter that zod 4 and others provide.
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>
      readonly output: (options: { target: string }) => Record<string, unknown>
    } | undefined
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
  }
}
type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }> }

/** A schema a user may hand us: any Standard Schema, or a plain JSON Schema object. */
export type SchemaInput = StandardSchema | JsonObject

export type Infer<S, Fallback = Record<string, unknown>> = S extends StandardSchema<unknown, infer O> ? O : Fallback

export type Checked = { ok: true; value: unknown } | { ok: false; issues: string[] }

export interface CompiledSchema {
  /** The JSON Schema advertised to clients. */
  readonly json: JsonObject
  /** Resolves to the parsed value, or to readable issue messages. */
  /** Synchronous where the schema library is (zod, JSON Schema): no promise on the hot path. */
  validate(value: unknown): Checked | Promise<Checked>
}

const isStandard = (s: unknown): s is StandardSchema => isObject(s) && isObject((s as JsonObject)['~standard'])

/** Compiles once, at definition time: a schema that cannot be followed fails the definition, not a call. */
export function compileSchema(schema: SchemaInput, role: 'input' | 'output', where: string, json?: JsonObject): CompiledSchema {
  if (isStandard(schema)) {
    const std = schema['~standard']
    const advertised = json ?? std.jsonSchema?.[role]({ target: 'draft-2020-12' })
    if (!advertised) {
      throw new Error(`${where}: the ${std.vendor} schema cannot describe itself as JSON Schema; pass its JSON Schema as ${role}Schema`)
    }
    return {
      json: advertised,
      validate(value) {
        const result = std.validate(value)
        return result instanceof Promise ? result.then(standardChecked) : standardChecked(result)
      },
    }
  }
  if (!isObject(schema)) throw new Error(`${where}: a schema must be a Standard Schema or a JSON Schema object`)
  let check: ReturnType<typeof compileJsonSchema>
  try {
    check = compileJsonSchema(schema)
  } catch (e) {
    throw new Error(`${where}: invalid JSON Schema: ${(e as Error).message}`)
  }
  return {
    json: json ?? schema,
    validate(value) {
      const issues = check(value)
      if (issues.length === 0) return { ok: true, value }
      return { ok: false, issues: issues.map((i) => (i.at ? `${i.at.slice(1)}: ${i.message}` : i.message)) }
    },
  }
}

function standardChecked(result: StandardResult<unknown>): Checked {
  return result.issues ? { ok: false, issues: result.issues.slice(0, MAX_ISSUES).map(formatIssue) } : { ok: true, value: result.value }
}

function formatIssue(issue: { message: string; path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }): string {
  const path = issue.path?.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')
  return path ? `${path}: ${issue.message}` : issue.message
}

/** Tool input and output schemas must describe objects (tools/list schema: `inputSchema.type === "object"`). */
export function assertObjectSchema(json: JsonObject, where: string): void {
  if (json.type !== 'object') throw new Error(`${where} must have "type": "object" at its root`)
}
