/** What a server definition accepts and refuses, and how handler results become wire results. */
import * as v from 'valibot'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, McpError, McpServer, ToolError } from '../../src/index.js'
import { META_2026, rpc } from '../helpers/server.js'

const server = () => new McpServer({ name: 'defs', version: '1.0.0' })

async function call(s: McpServer, name: string, args: unknown) {
  const { body } = await rpc(createFetchHandler(s), 'tools/call', { name, arguments: args, _meta: META_2026() })
  return body as { result?: Record<string, unknown>; error?: { code: number; message: string } }
}

describe('tool definitions', () => {
  it('refuses bad names, duplicates, non-object schemas and broken x-mcp-header at definition time', () => {
    expect(() => server().tool('has space', {}, () => '')).toThrow(/must match/)
    expect(() => server().tool('t', {}, () => '').tool('t', {}, () => '')).toThrow(/already registered/)
    expect(() => server().tool('t', { input: { type: 'string' } }, () => '')).toThrow(/"type": "object"/)
    expect(() => server().tool('t', { input: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } }, () => ''))
      .toThrow(/x-mcp-header at tool "t" inputSchema.properties.n/)
  })

  it('refuses, naming the tool, a schema the validator cannot follow and task settings it does not know', () => {
    expect(() => server().tool('t', { input: { type: 'object', properties: { a: { type: 'nope' } } } }, () => ''))
      .toThrow(/^tool "t": invalid JSON Schema: unknown type "nope"$/)
    expect(() => server().tool('t', { task: 'sometimes' as 'optional' }, () => '')).toThrow(/^tool "t": task must be 'optional' or 'required'$/)
    expect(() => server().tool('t', { beforeTask: () => undefined }, () => '')).toThrow(/^tool "t": beforeTask needs task 'optional' or 'required'$/)
  })

  it('needs a JSON Schema for Standard Schemas that cannot describe themselves', () => {
    expect(() => server().tool('t', { input: v.object({ a: v.string() }) }, () => '')).toThrow(/valibot.*inputSchema/)
    expect(() => server().tool('t', {
      input: v.object({ a: v.string() }),
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    }, ({ a }) => a)).not.toThrow()
  })

  it('validates arguments with valibot, zod and JSON Schema alike; failures are tool errors the model can read', async () => {
    const s = server()
      .tool('vb', { input: v.object({ a: v.string() }), inputSchema: { type: 'object' } }, ({ a }) => `vb:${a}`)
      .tool('zd', { input: z.object({ a: z.string().min(2) }) }, ({ a }) => `zd:${a}`)
      .tool('js', { input: { type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: ['a'] } }, (args) => `js:${String(args.a)}`)
    for (const name of ['vb', 'zd', 'js']) {
      expect((await call(s, name, { a: 'ok' })).result?.content).toEqual([{ type: 'text', text: `${name}:ok` }])
      const bad = await call(s, name, { a: 5 })
      expect(bad.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining(`Invalid arguments for tool ${name}`) }] })
    }
    expect((await call(s, 'js', { a: 'x' })).result?.content).toEqual([{ type: 'text', text: expect.stringContaining('a:') }])
  })

  it('reports at most 20 JSON Schema issues, the failing keywords rather than their parents, root ones without a path', async () => {
    // 30 failing subschemas: hostile input must not make the error message grow with the schema.
    const s = server().tool('many', { input: { type: 'object', allOf: Array.from({ length: 30 }, (_, i) => ({ required: [`k${i}`] })) } }, () => '')
    const text = (await call(s, 'many', {})).result?.content as [{ text: string }]
    expect(text[0].text).toMatch(/^Invalid arguments for tool many: missing required property "k0"; missing required property "k1"; /)
    expect(text[0].text).not.toContain('every subschema')
    expect(text[0].text.split('; ').length).toBeLessThanOrEqual(20)
  })

  it('normalises what handlers return', async () => {
    const s = server()
      .tool('none', {}, () => undefined)
      .tool('content', {}, () => [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])
      .tool('object', {}, () => ({ x: 1 }))
      .tool('structured_only', {}, () => ({ structuredContent: { y: 2 } }))
      .tool('own_meta', {}, () => ({ content: [], _meta: { 'example.com/trace': 'abc' } }))
      .tool('throws', {}, () => {
        throw new Error('disk on fire')
      })
    expect((await call(s, 'none', {})).result?.content).toEqual([])
    expect((await call(s, 'content', {})).result?.content).toHaveLength(2)
    expect((await call(s, 'object', {})).result).toMatchObject({ structuredContent: { x: 1 }, content: [{ type: 'text', text: '{"x":1}' }] })
    expect((await call(s, 'structured_only', {})).result).toMatchObject({ structuredContent: { y: 2 }, content: [{ type: 'text', text: '{"y":2}' }] })
    // A result's own _meta keeps its keys and still names the server.
    expect((await call(s, 'own_meta', {})).result?._meta).toEqual({ 'example.com/trace': 'abc', 'io.modelcontextprotocol/serverInfo': { name: 'defs', version: '1.0.0' } })
    // An unexpected exception's message stays in the server's log (test/http/errors.test.ts).
    expect((await call(s, 'throws', {})).result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^Tool throws failed unexpectedly \(error id [0-9a-f]{8}\)$/) }] })
  })

  it('a protocol error thrown by a tool is a JSON-RPC error, whatever its code; a ToolError is a result the model reads', async () => {
    const s = server()
      .tool('refuses', {}, () => {
        throw new McpError(-32602, 'that id does not exist', { id: 7 })
      })
      .tool('internal', {}, () => {
        throw new McpError(-32603, 'the tool gave up')
      })
      .tool('gives_up', {}, () => {
        throw new ToolError('the tool gave up')
      })
    expect((await call(s, 'refuses', {})).error).toEqual({ code: -32602, message: 'that id does not exist', data: { id: 7 } })
    expect((await call(s, 'internal', {})).error).toEqual({ code: -32603, message: 'the tool gave up' })
    expect((await call(s, 'gives_up', {})).result).toEqual({
      content: [{ type: 'text', text: 'the tool gave up' }], isError: true, resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'defs', version: '1.0.0' } },
    })
  })

  it('checks structuredContent against the output schema, and only of results that are not errors', async () => {
    const s = server()
      .tool('fails', { output: z.object({ n: z.number() }) }, () => ({ isError: true, content: [{ type: 'text', text: 'no n today' }] }))
      .tool('fits', { output: z.object({ n: z.number() }) }, () => ({ n: 1 }))
    expect((await call(s, 'fails', {})).result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no n today' }] })
    expect((await call(s, 'fits', {})).result).toMatchObject({ structuredContent: { n: 1 } })
  })

  it('checks structuredContent against the output schema', async () => {
    const s = server().tool('out', { output: z.object({ n: z.number() }) }, (() => ({ n: 'not a number' })) as never)
    const res = await call(s, 'out', {})
    expect(res.error).toMatchObject({ code: -32603, message: expect.stringContaining('outputSchema') })
  })

  it('removed and disabled tools disappear from calls; enabling brings them back', async () => {
    const s = server().tool('t', {}, () => 'here')
    const changes: string[] = []
    s.onListChanged((list) => changes.push(list))
    expect(s.disable('tool', 't')).toBe(true)
    expect((await call(s, 't', {})).error?.code).toBe(-32602)
    s.enable('tool', 't')
    expect((await call(s, 't', {})).result?.content).toEqual([{ type: 'text', text: 'here' }])
    expect(s.remove('tool', 't')).toBe(true)
    expect(s.remove('tool', 't')).toBe(false)
    expect(changes).toEqual(['tools', 'tools', 'tools'])
  })
})

describe('other definitions', () => {
  it('ToolError is named so in logs and stack traces', () => {
    expect(String(new ToolError('bad input'))).toBe('ToolError: bad input')
  })

  it('serves binary resources of any size as base64 that decodes to the same bytes', async () => {
    const bytes = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7919) % 256)
    const s = server().resource('test://big.bin', { name: 'big', mimeType: 'application/octet-stream' }, () => bytes)
    const { body } = await rpc(createFetchHandler(s), 'resources/read', { uri: 'test://big.bin', _meta: META_2026() })
    const [contents] = body.result.contents
    expect(contents).toMatchObject({ uri: 'test://big.bin', mimeType: 'application/octet-stream' })
    expect(new Uint8Array(Buffer.from(contents.blob, 'base64'))).toEqual(bytes)
  })

  it('refuses relative resource URIs, bad templates and completers for unknown variables', () => {
    expect(() => server().resource('relative/path', { name: 'r' }, () => '')).toThrow(/absolute URI/)
    expect(() => server().resourceTemplate('x://{a', { name: 't' }, () => '')).toThrow(/unclosed/)
    expect(() => server().resourceTemplate('x://{a}', { name: 't', complete: { b: () => [] } }, () => '')).toThrow(/unknown variable "b"/)
  })

  it('refuses servers without identity, unknown versions and bad page sizes', () => {
    expect(() => new McpServer({ name: '', version: '1' })).toThrow()
    expect(() => new McpServer({ name: 'x', version: '1', versions: ['1999-01-01'] })).toThrow(/versions/)
    expect(() => new McpServer({ name: 'x', version: '1', pageSize: 0 })).toThrow(/pageSize/)
  })
})
