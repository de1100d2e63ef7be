/** How a server definition keeps its entries: identity, duplicates, listeners, cached lists and derived capabilities. */
import * as v from 'valibot'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpServer } from '../../src/index.js'
import { META_2026, rpc } from '../helpers/server.js'

const server = () => new McpServer({ name: 'reg', version: '1.0.0' })
const asker = { client: { capabilities: {} } }

async function capabilities(s: McpServer) {
  const { body } = await rpc(createFetchHandler(s), 'server/discover', { _meta: META_2026() })
  return body.result.capabilities
}

describe('server identity', () => {
  it('keeps only the identity fields it was given (no undefined members)', () => {
    expect(new McpServer({ name: 'x', version: '1' }).info).toStrictEqual({ name: 'x', version: '1' })
  })

  it('says what is wrong with a bad identity or version list', () => {
    expect(() => new McpServer({ name: 'x', version: '' })).toThrow('McpServer needs a name and a version')
    // An empty list serves nothing, so it is refused like an unknown version.
    expect(() => new McpServer({ name: 'x', version: '1', versions: [] })).toThrow(/non-empty subset/)
    // Both lists read as comma-separated, so the user can see which versions exist and which were wrong.
    expect(() => new McpServer({ name: 'x', version: '1', versions: ['1999-01-01', '2000-01-01'] }))
      .toThrow(/subset of [^ ]+(, [^ ]+)+ \(got 1999-01-01, 2000-01-01\)$/)
  })
})

describe('definition errors name the entry and the schema', () => {
  it('names the kind of a duplicate', () => {
    expect(() => server().tool('t', {}, () => '').tool('t', {}, () => '')).toThrow('tool "t" is already registered')
    expect(() => server().prompt('p', {}, () => '').prompt('p', {}, () => '')).toThrow('prompt "p" is already registered')
    expect(() => server().resourceTemplate('x://{a}', { name: 'a' }, () => '').resourceTemplate('x://{a}', { name: 'b' }, () => ''))
      .toThrow('resource template "x://{a}" is already registered')
  })

  it('says which schema of which tool or prompt is wrong', () => {
    expect(() => server().tool('t', { input: { type: 'string' } }, () => '')).toThrow('tool "t": inputSchema must have "type": "object"')
    expect(() => server().tool('t', { output: { type: 'string' } }, () => '')).toThrow('tool "t": outputSchema must have "type": "object"')
    expect(() => server().prompt('p', { args: v.object({ a: v.string() }) }, () => [])).toThrow(/^prompt "p": the valibot schema/)
  })
})

describe('prompt arguments', () => {
  it('are listed as given, or derived from a schema with only the required ones marked', async () => {
    const s = server()
      .prompt('given', { args: [{ name: 'x', description: 'an x', required: true }] }, () => [])
      .prompt('zod', { args: z.object({ city: z.string().describe('City'), units: z.enum(['c', 'f']).optional() }) }, () => [])
      .prompt('none_required', { args: { type: 'object', properties: { q: { type: 'string', title: 'Query' } } } }, () => [])
    const { body } = await rpc(createFetchHandler(s), 'prompts/list', { _meta: META_2026() })
    const args = Object.fromEntries(body.result.prompts.map((p: { name: string; arguments?: unknown }) => [p.name, p.arguments]))
    expect(args).toStrictEqual({
      given: [{ name: 'x', description: 'an x', required: true }],
      zod: [{ name: 'city', description: 'City', required: true }, { name: 'units' }],
      none_required: [{ name: 'q', title: 'Query' }],
    })
  })
})

describe('changes', () => {
  it('tells listeners of real changes only, until they unsubscribe', () => {
    const s = server().tool('t', {}, () => '')
    const changes: string[] = []
    const off = s.onListChanged((list) => changes.push(list))
    expect(s.disable('tool', 't')).toBe(true)
    expect(s.disable('tool', 't')).toBe(true) // already disabled: nothing changed
    expect(s.enable('tool', 't')).toBe(true)
    expect(s.enable('tool', 't')).toBe(true)
    expect(changes).toEqual(['tools', 'tools'])
    off()
    s.prompt('p', {}, () => [])
    expect(changes).toEqual(['tools', 'tools'])
  })

  it('cannot disable or enable what is not registered', () => {
    expect(server().disable('tool', 'missing')).toBe(false)
    expect(server().enable('prompt', 'missing')).toBe(false)
  })

  it('computes a list nobody is hidden from once per change', () => {
    const s = server().tool('a', {}, () => '')
    const first = s.listed('tool', asker)
    expect(s.listed('tool', asker)).toBe(first)
    s.tool('b', {}, () => '')
    expect(s.listed('tool', asker).map((t) => t.name)).toEqual(['a', 'b'])
  })
})

describe('derived capabilities', () => {
  it('advertise only what the definition has handlers for; completions serve prompts and templates', async () => {
    expect(await capabilities(server())).toEqual({ logging: {} })
    expect(await capabilities(server().tool('t', {}, () => ''))).toEqual({ tools: { listChanged: true }, logging: {} })
    expect(await capabilities(server().prompt('p', {}, () => []))).toEqual({ prompts: { listChanged: true }, completions: {}, logging: {} })
    expect(await capabilities(server().resourceTemplate('x://{a}', { name: 'a' }, () => '')))
      .toEqual({ resources: { subscribe: true, listChanged: true }, completions: {}, logging: {} })
  })
})
