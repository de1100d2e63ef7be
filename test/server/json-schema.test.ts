import { Validator } from '@cfworker/json-schema'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileJsonSchema } from '../../src/server/json-schema/compile.js'

const valid = (schema: unknown, value: unknown) => compileJsonSchema(schema)(value).length === 0
const issues = (schema: unknown, value: unknown) => compileJsonSchema(schema)(value).map((i) => `${i.at}|${i.message}`)

// Values and schemas over a few keys and small numbers, so that generated values often meet generated schemas.
const key = fc.constantFrom('a', 'b', 'c')
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null), fc.boolean(), fc.integer({ min: -4, max: 6 }), fc.constantFrom(0.5, 2.5, -1.5),
    fc.constantFrom('', 'a', 'ab', 'abc', 'b1', '😀'),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('json'), { maxKeys: 4 }),
  ),
}))
// As JSON.parse makes them (fast-check's dictionaries have no prototype, which Ajv's equality tells apart).
const value = json.map((v) => JSON.parse(JSON.stringify(v)) as unknown)
const typeName = fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'array', 'object')
const small = fc.integer({ min: 0, max: 3 })
const leaf = fc.oneof(
  fc.constant(true), fc.constant(false),
  fc.record({ type: fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 })) }),
  fc.record({ enum: fc.array(value, { minLength: 1, maxLength: 3 }) }),
  fc.record({ const: value }),
  fc.record({ minimum: fc.integer({ min: -3, max: 3 }), exclusiveMaximum: fc.integer({ min: -3, max: 5 }) }, { requiredKeys: [] }),
  fc.record({ maximum: fc.integer({ min: -3, max: 3 }), exclusiveMinimum: fc.integer({ min: -3, max: 3 }), multipleOf: fc.constantFrom(1, 2, 3, 0.5) }, { requiredKeys: [] }),
  fc.record({ minLength: small, maxLength: small, pattern: fc.constantFrom('^a', 'b$', '^[a-c]*$', '\\d', '\\p{Emoji}') }, { requiredKeys: [] }),
  fc.record({ minItems: small, maxItems: small, uniqueItems: fc.boolean() }, { requiredKeys: [] }),
  fc.record({ required: fc.uniqueArray(key, { maxLength: 2 }), minProperties: small, maxProperties: small }, { requiredKeys: [] }),
  fc.record({ dependentRequired: fc.dictionary(key, fc.uniqueArray(key, { maxLength: 2 }), { maxKeys: 2 }) }),
)
// A node is one to three keywords, each holding schemas; depth is capped so that schemas stay readable.
const { schema } = fc.letrec((tie) => {
  const one = (k: string) => tie('schema').map((x) => ({ [k]: x }))
  const map = (k: string, keys: fc.Arbitrary<string>) => fc.dictionary(keys, tie('schema'), { minKeys: 1, maxKeys: 2 }).map((x) => ({ [k]: x }))
  const list = (k: string) => fc.array(tie('schema'), { minLength: 1, maxLength: 2 }).map((x) => ({ [k]: x }))
  const keyword = fc.oneof(
    typeName.map((type) => ({ type })),
    map('properties', key), map('patternProperties', fc.constantFrom('^a', 'c$', '^[bd]')), map('dependentSchemas', key),
    one('additionalProperties'), one('propertyNames'), one('unevaluatedProperties'),
    list('prefixItems'), one('items'), one('unevaluatedItems'),
    fc.record({ contains: tie('schema'), minContains: small, maxContains: small }, { requiredKeys: ['contains'] }),
    list('allOf'), list('anyOf'), list('oneOf'), one('not'),
    fc.record({ if: tie('schema'), then: tie('schema'), else: tie('schema') }, { requiredKeys: ['if'] }),
  )
  return {
    schema: fc.oneof({ maxDepth: 3, depthIdentifier: 'schema' }, leaf, tie('node')),
    node: fc.array(keyword, { minLength: 1, maxLength: 3 }).map((ks) => Object.assign({}, ...ks) as object),
  }
})

describe('JSON Schema validation', () => {
  // Two independent implementations as the oracle. Each has gaps the other has not (Ajv: `prefixItems` beside
  // `contains` on an empty array, items annotations from `anyOf` branches, a throw on some if/then schemas), so the
  // answer must be one of theirs, and theirs when they agree.
  it('agrees with Ajv and @cfworker/json-schema (draft 2020-12) on generated schemas and values', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    let compared = 0
    let values = 0
    fc.assert(fc.property(schema, fc.array(value, { minLength: 1, maxLength: 8 }), (s, vs) => {
      const ajvCheck = ajv.compile(s as object)
      const cfworker = new Validator(s as never, '2020-12')
      const ours = compileJsonSchema(s)
      for (const v of vs) {
        values++
        const answers = new Set([cfworker.validate(v).valid])
        try {
          answers.add(ajvCheck(v))
        } catch {
          // Ajv's generated code threw: cfworker's answer alone.
        }
        if (answers.size > 1) continue
        compared++
        expect(ours(v).length === 0, JSON.stringify({ schema: s, value: v })).toBe([...answers][0])
      }
    }), { numRuns: 2000 })
    expect(compared / values).toBeGreaterThan(0.95)
  })

  it('says what is wrong and where, with JSON Pointer paths', () => {
    const s = { type: 'object', properties: { a: { type: 'string', minLength: 2 }, n: { type: 'array', items: { type: 'integer', maximum: 3 } } }, required: ['a', 'b'], additionalProperties: false }
    expect(issues(s, { a: 'x', n: [1, 2.5, 9], z: 1 })).toEqual([
      '|missing required property "b"',
      '/a|must be at least 2 characters long',
      '/n/1|expected integer, got number',
      '/n/2|must be <= 3',
      '|unexpected property "z"',
    ])
    expect(issues(s, 'x')).toEqual(['|expected object, got string'])
    expect(issues({ enum: ['a', 1] }, 'b')).toEqual(['|must be one of ["a",1]'])
    expect(issues({ const: { x: [1] } }, { x: [2] })).toEqual(['|must be {"x":[1]}'])
    expect(issues({ pattern: '^a' }, 'b')).toEqual(['|must match the pattern ^a'])
    expect(issues({ multipleOf: 0.1 }, 0.3)).toEqual([])
    expect(issues({ multipleOf: 0.1 }, 0.35)).toEqual(['|must be a multiple of 0.1'])
    expect(issues({ uniqueItems: true }, [1, { a: 1, b: 2 }, { b: 2, a: 1 }])).toEqual(['|items 1 and 2 are equal; items must be unique'])
    expect(issues({ anyOf: [{ type: 'string' }, { type: 'number' }] }, null)).toEqual(['|must match at least one of the schemas in anyOf'])
    expect(issues({ oneOf: [{ type: 'integer' }, { type: 'number' }] }, 1)).toEqual(['|must match exactly one of the schemas in oneOf, matches 2'])
    expect(issues({ not: { type: 'null' } }, null)).toEqual(['|must not match the schema in "not"'])
    expect(issues({ contains: { const: 1 }, maxContains: 1 }, [1, 1])).toEqual(['|must contain at most 1 matching items, has 2'])
    expect(issues({ contains: { const: 1 } }, [])).toEqual(['|must contain at least 1 matching item, has 0'])
    expect(issues({ propertyNames: { maxLength: 1 } }, { ab: 1 })).toEqual(['|property name "ab" is not allowed'])
    expect(issues({ dependentRequired: { a: ['b'] } }, { a: 1 })).toEqual(['|property "a" requires property "b"'])
    expect(issues({ minProperties: 1 }, {})).toEqual(['|must have at least 1 properties'])
    expect(issues({ maxItems: 0 }, [1])).toEqual(['|must have at most 0 items'])
    expect(issues(false, 1)).toEqual(['|no value is allowed here'])
    expect(issues({ unevaluatedProperties: false, properties: { a: true } }, { a: 1, b: 2 })).toEqual(['|unexpected property "b"'])
    // Every failing keyword is told, unevaluated ones too.
    expect(issues({ required: ['x'], unevaluatedProperties: false }, { y: 1 })).toEqual(['|missing required property "x"', '|unexpected property "y"'])
  })

  it('counts as evaluated only the items `contains` matched, for unevaluatedItems', () => {
    const s = { contains: { type: 'string' }, unevaluatedItems: { type: 'integer' } }
    expect(valid(s, ['a', 1, 'b'])).toBe(true)
    expect(issues(s, ['a', null])).toEqual(['/1|expected integer, got null'])
  })

  it('counts as evaluated what every matching branch of anyOf looked at, not only the first', () => {
    const s = { anyOf: [{ properties: { a: true } }, { properties: { b: true } }], unevaluatedProperties: false }
    expect(valid(s, { a: 1, b: 2 })).toBe(true)
    expect(issues(s, { a: 1, c: 3 })).toEqual(['|unexpected property "c"'])
  })

  it('counts as evaluated what the one matching branch of oneOf looked at', () => {
    const s = { oneOf: [{ properties: { a: true }, required: ['a'] }, { required: ['b'] }], unevaluatedProperties: false }
    expect(valid(s, { a: 1 })).toBe(true)
    expect(valid(s, { a: 1, c: 1 })).toBe(false)
  })

  it('counts characters as code points', () => {
    expect(valid({ maxLength: 1 }, '😀')).toBe(true)
    expect(valid({ minLength: 2 }, '😀')).toBe(false)
    // A lone surrogate is one character.
    expect(valid({ minLength: 2 }, '\ud83dx')).toBe(true)
    // The first and last pairs are one character each; a low surrogate first, or a high one before anything but
    // a low one, is a character of its own (JSON text may escape any of them: "\udc00").
    expect(valid({ maxLength: 1 }, '\u{10000}')).toBe(true)
    expect(valid({ maxLength: 1 }, '\u{10ffff}')).toBe(true)
    expect(valid({ minLength: 2 }, 'a\udc00')).toBe(true)
    expect(valid({ minLength: 2 }, '\udc00\udc00')).toBe(true)
    expect(valid({ minLength: 2 }, '\ud83d\ue000')).toBe(true)
  })

  it('compares arrays item by item for const, enum and uniqueItems', () => {
    expect(valid({ const: [1, { a: [2] }] }, [1, { a: [2] }])).toBe(true)
    expect(valid({ const: [1, { a: [2] }] }, [1, { a: [3] }])).toBe(false)
    expect(valid({ enum: [[1, 2]] }, [1, 2])).toBe(true)
    expect(valid({ uniqueItems: true }, [[1, 2], [1, 3]])).toBe(true)
    expect(valid({ uniqueItems: true }, [[1, 2], [1, 2]])).toBe(false)
  })

  it('includes the bounds themselves, and says each bound and count in its message', () => {
    expect(valid({ maximum: 3 }, 3)).toBe(true)
    expect(valid({ minimum: 3 }, 3)).toBe(true)
    expect(issues({ minimum: 2 }, 1)).toEqual(['|must be >= 2'])
    expect(issues({ exclusiveMinimum: 2 }, 2)).toEqual(['|must be > 2'])
    expect(issues({ exclusiveMaximum: 2 }, 2)).toEqual(['|must be < 2'])
    expect(issues({ maxLength: 1 }, 'ab')).toEqual(['|must be at most 1 characters long'])
    expect(issues({ maxProperties: 0 }, { a: 1 })).toEqual(['|must have at most 0 properties'])
    expect(issues({ minItems: 2 }, [1])).toEqual(['|must have at least 2 items'])
    expect(issues({ contains: { const: 1 }, minContains: 2 }, [1])).toEqual(['|must contain at least 2 matching items, has 1'])
    expect(issues({ type: ['string', 'null'] }, [1])).toEqual(['|expected string or null, got array'])
    // A value longer than 80 characters is cut to 80 in the message; one of 80 is said whole.
    const long = Array.from({ length: 30 }, (_, i) => `v${i}`)
    expect(issues({ enum: long }, 'x')).toEqual([`|must be one of ${JSON.stringify(long).slice(0, 77)}...`])
    expect(issues({ enum: ['a'.repeat(76)] }, 'x')).toEqual([`|must be one of ["${'a'.repeat(76)}"]`])
  })

  it('follows $ref to $defs, definitions, anchors, embedded $id resources and itself', () => {
    const tree = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, v: { type: 'integer' } } } }, $ref: '#/$defs/node' }
    expect(valid(tree, { v: 1, next: { v: 2, next: { v: 3 } } })).toBe(true)
    expect(issues(tree, { v: 1, next: { next: { v: 'x' } } })).toEqual(['/next/next/v|expected integer, got string'])
    expect(valid({ definitions: { s: { type: 'string' } }, items: { $ref: '#/definitions/s' } }, ['a', 1])).toBe(false)
    expect(valid({ $defs: { a: { $anchor: 'num', type: 'number' } }, $ref: '#num' }, 'x')).toBe(false)
    const embedded = { $id: 'https://example.com/root.json', $defs: { x: { $id: 'item.json', type: 'boolean' } }, items: { $ref: 'item.json' } }
    expect(valid(embedded, [true])).toBe(true)
    expect(valid(embedded, [1])).toBe(false)
    expect(valid({ $defs: { 'a/b~c': { type: 'null' } }, $ref: '#/$defs/a~1b~0c' }, null)).toBe(true)
    expect(valid({ type: 'array', items: { $ref: '#' } }, [[[]], []])).toBe(true)
    expect(valid({ type: 'array', items: { $ref: '#' } }, [[1]])).toBe(false)
  })

  it('refuses, when compiling, a schema it cannot follow', () => {
    expect(() => compileJsonSchema({ type: 'strin' })).toThrow('unknown type "strin"')
    expect(() => compileJsonSchema({ pattern: '(' })).toThrow('invalid pattern "("')
    expect(() => compileJsonSchema({ $ref: 'https://example.com/other.json' })).toThrow('cannot resolve $ref "https://example.com/other.json"')
    expect(() => compileJsonSchema({ $ref: '#/$defs/missing' })).toThrow('cannot resolve $ref')
    // An `$id` inside a value is data, not a resource to refer to.
    expect(() => compileJsonSchema({ const: { $id: 'https://example.com/x' }, items: { $ref: 'https://example.com/x' } })).toThrow('cannot resolve $ref')
    for (const loop of [{ $ref: '#' }, { $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, not: { $ref: '#/$defs/a' } }]) {
      expect(() => compileJsonSchema(loop)).toThrow('the schema refers to itself without descending into the value')
    }
    expect(() => compileJsonSchema({ properties: { a: 5 } })).toThrow('a schema must be an object or a boolean, not 5')
  })

  it('takes the draft-07 forms: an array of items with additionalItems, and dependencies', () => {
    const tuple = { items: [{ type: 'string' }], additionalItems: false }
    expect(valid(tuple, ['a'])).toBe(true)
    expect(valid(tuple, ['a', 1])).toBe(false)
    expect(valid(tuple, [1])).toBe(false)
    expect(valid({ dependencies: { a: ['b'] } }, { a: 1 })).toBe(false)
    expect(valid({ dependencies: { a: { required: ['c'] } } }, { a: 1, c: 1 })).toBe(true)
    expect(valid({ dependencies: { a: { required: ['c'] } } }, { a: 1 })).toBe(false)
  })

  it('treats format as an annotation, as draft 2020-12 does by default', () => {
    expect(valid({ format: 'email' }, 'not an email')).toBe(true)
  })

  it('stops at 20 issues however many items fail', () => {
    const many = compileJsonSchema({ items: { type: 'string' } })(Array.from({ length: 100_000 }, (_, i) => i))
    expect(many).toHaveLength(20)
    expect(many[19]).toEqual({ at: '/19', message: 'expected string, got number' })
  })
})
