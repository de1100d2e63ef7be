import { describe, expect, it } from 'vitest'
import { decodeHeaderValue, encodeHeaderValue, headerMatches, paramHeaders } from '../../src/protocol/headers.js'

describe('Mcp-Name / Mcp-Param value encoding', () => {
  it.each([
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['plain-ascii value', 'plain-ascii value'],
    ['', ''],
  ])('%j <-> %s (the spec examples)', (value, header) => {
    expect(encodeHeaderValue(value)).toBe(header)
    expect(decodeHeaderValue(header)).toBe(value)
  })

  it.each([
    ['=?base64?SGVsbG8?=', 'padding missing'],
    ['=?base64?SGVs!!!bG8=?=', 'not base64'],
    ['=?base64?/w==?=', 'not UTF-8'],
    ['caf\u00e9', 'raw non-ASCII'],
    ['a\u0001b', 'control character'],
  ])('refuses %j (%s)', (header) => {
    expect(decodeHeaderValue(header)).toBeUndefined()
  })

  it('treats sentinel look-alikes as literals and trims surrounding whitespace', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=')
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=')
    expect(decodeHeaderValue('  tool  ')).toBe('tool')
  })

  it('compares integers numerically and booleans exactly', () => {
    expect(headerMatches('42', 42, 'integer')).toBe(true)
    expect(headerMatches('42.0', 42, 'integer')).toBe(true)
    expect(headerMatches('', 0, 'integer')).toBe(false)
    expect(headerMatches('true', true, 'boolean')).toBe(true)
    expect(headerMatches('True', true, 'boolean')).toBe(false)
    expect(headerMatches('42', '42', 'integer')).toBe(false)
  })
})

describe('x-mcp-header rules, checked when a tool is defined', () => {
  const prop = (extra: object) => ({ type: 'object', properties: { p: { type: 'string', ...extra } } })

  it('finds headers on properties reached through properties only', () => {
    expect(paramHeaders({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        nested: { type: 'object', properties: { id: { type: 'integer', 'x-mcp-header': 'Id' } } },
      },
    })).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Id', path: ['nested', 'id'], type: 'integer' },
    ])
  })

  it.each([
    [prop({ 'x-mcp-header': '' }), /non-empty/],
    [prop({ 'x-mcp-header': 'Has Space' }), /HTTP token/],
    [prop({ 'x-mcp-header': 'a:b' }), /HTTP token/],
    [prop({ 'x-mcp-header': 'Ünï' }), /HTTP token/],
    [{ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } }, /type/],
    [{ type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'O' } } }, /type/],
    [{ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Dup' }, b: { type: 'string', 'x-mcp-header': 'dup' } } }, /already used/],
    [{ type: 'object', properties: { l: { type: 'array', items: { type: 'string', 'x-mcp-header': 'L' } } } }, /chain of "properties"/],
    [{ type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }, /chain of "properties"/],
    [{ type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } }, /chain of "properties"/],
    [{ type: 'string', 'x-mcp-header': 'Root' }, /chain of "properties"/],
  ])('refuses %j', (schema, message) => {
    expect(() => paramHeaders(schema)).toThrow(message)
  })

  // Clients drop a tool with an annotation anywhere but on a chain of properties, so it is looked for everywhere.
  const hidden = { type: 'string', 'x-mcp-header': 'Hidden' }
  it.each([
    ['definitions', { definitions: { d: hidden } }],
    ['patternProperties', { patternProperties: { '^x': hidden } }],
    ['dependentSchemas', { dependentSchemas: { a: { properties: { b: hidden } } } }],
    ['allOf', { allOf: [{ properties: { a: hidden } }] }],
    ['oneOf', { oneOf: [{ properties: { a: hidden } }] }],
    ['prefixItems', { properties: { l: { type: 'array', prefixItems: [hidden] } } }],
    ['items as a list', { properties: { l: { type: 'array', items: [hidden] } } }],
    ['additionalProperties', { additionalProperties: hidden }],
    ['not', { not: hidden }],
    ['if', { if: { properties: { a: hidden } } }],
    ['then', { then: { properties: { a: hidden } } }],
    ['else', { else: { properties: { a: hidden } } }],
    ['contains', { properties: { l: { type: 'array', contains: hidden } } }],
    ['propertyNames', { propertyNames: hidden }],
    ['unevaluatedItems', { properties: { l: { type: 'array', unevaluatedItems: hidden } } }],
    ['unevaluatedProperties', { unevaluatedProperties: hidden }],
    ['additionalItems', { properties: { l: { type: 'array', additionalItems: hidden } } }],
  ])('finds and refuses one inside %s', (_where, schema) => {
    expect(() => paramHeaders({ type: 'object', ...schema })).toThrow(/chain of "properties"/)
  })

  it('names the offending place in the schema', () => {
    expect(() => paramHeaders({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'number', 'x-mcp-header': 'B' } } } } }, 'tool "t"'))
      .toThrow('x-mcp-header at tool "t".properties.a.properties.b: the property must have type "string", "integer" or "boolean" (got "number")')
    expect(() => paramHeaders({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } } }))
      .toThrow('"same" is already used by .properties.a')
  })
})
