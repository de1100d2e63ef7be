/** Schema compilation and issue messages, and the lazily made abort signal: gaps StrykerJS found. */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Cancellation } from '../../src/exchange/cancellation.js'
import { missingCapabilities } from '../../src/exchange/capabilities.js'
import { page } from '../../src/exchange/cursor.js'
import { compileSchema } from '../../src/server/schema.js'

describe('schemas', () => {
  it('refuses what is neither a Standard Schema nor a JSON Schema object', () => {
    expect(() => compileSchema(5 as never, 'input', 'tool "t"')).toThrow('tool "t": a schema must be a Standard Schema or a JSON Schema object')
  })

  it('advertises a Standard Schema as JSON Schema 2020-12', () => {
    expect(compileSchema(z.object({ a: z.string() }), 'input', 't').json.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
  })

  it('JSON Schema issues: the failing keyword, with its path; none for the root; at most 20 for many bad items', async () => {
    const nested = compileSchema({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'number' } } } } }, 'input', 't')
    const bad = await nested.validate({ a: { b: 'x' } })
    expect(bad.ok).toBe(false)
    const issues = (bad as { issues: string[] }).issues
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatch(/^a\/b: \S/)
    const root = (await nested.validate(5)) as { issues: string[] }
    expect(root.issues).toHaveLength(1)
    expect(root.issues[0]).not.toMatch(/^[#:/]|: .*: /)
    const items = compileSchema({ type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } } }, 'input', 't')
    const many = ((await items.validate({ xs: Array(30).fill('x') })) as { issues: string[] }).issues
    expect(many).toHaveLength(20)
    expect(many[19]).toBe('xs/19: expected number, got string')
  })

  it('Standard Schema issues: dotted paths, at most 20', async () => {
    const schema = compileSchema(z.object({ xs: z.array(z.number()) }), 'input', 't')
    const { issues } = (await schema.validate({ xs: Array(30).fill('x') })) as { issues: string[] }
    expect(issues).toHaveLength(20)
    expect(issues[0]).toMatch(/^xs\.0: \S/)
    const root = (await schema.validate('nope')) as { issues: string[] }
    // No path: the message alone (zod's own text).
    expect(root.issues).toEqual(['Invalid input: expected object, received string'])
  })
})

describe('Cancellation', () => {
  it('makes one signal, on first read, that follows the parent whether it aborted before or after', () => {
    const early = new AbortController()
    early.abort('before')
    const a = new Cancellation(early)
    expect([a.signal.aborted, a.signal.reason, a.aborted]).toEqual([true, 'before', true])
    const late = new AbortController()
    const b = new Cancellation(late)
    expect(b.signal).toBe(b.signal)
    late.abort('after')
    expect([b.signal.aborted, b.signal.reason]).toEqual([true, 'after'])
  })

  it('calls every abort listener once, in order, but one taken off; one added after the abort at once', () => {
    const cancel = new Cancellation()
    const called: string[] = []
    const b = () => called.push('b')
    cancel.onAbort(() => called.push('a'))
    cancel.onAbort(b)
    cancel.onAbort(() => called.push('c'))
    cancel.offAbort(b)
    cancel.offAbort(b)
    cancel.abort('gone')
    cancel.abort('again')
    expect(called).toEqual(['a', 'c'])
    cancel.onAbort(() => called.push('late'))
    expect(called).toEqual(['a', 'c', 'late'])
  })

  it('takes off the first of several listeners too', () => {
    const cancel = new Cancellation()
    const called: string[] = []
    const first = () => called.push('first')
    cancel.onAbort(first)
    cancel.onAbort(() => called.push('second'))
    cancel.offAbort(first)
    cancel.abort()
    expect(called).toEqual(['second'])
  })

  it('one listener: called once on abort; taken off, or another taken off, as it should', () => {
    const called: string[] = []
    const only = () => called.push('only')
    const kept = new Cancellation()
    kept.onAbort(only)
    kept.offAbort(() => called.push('stranger'))
    kept.abort('gone')
    kept.abort('again')
    const dropped = new Cancellation()
    dropped.onAbort(only)
    dropped.offAbort(only)
    dropped.abort('gone')
    expect(called).toEqual(['only'])
    // Taken off and added again: its place is free, and a second one joins it.
    const again = new Cancellation()
    again.onAbort(only)
    again.offAbort(only)
    again.onAbort(only)
    again.onAbort(() => called.push('second'))
    again.abort('gone')
    expect(called).toEqual(['only', 'only', 'second'])
  })

  it('an abort before anyone looked, and a second abort, keep the first reason', () => {
    const c = new Cancellation()
    c.abort('first')
    c.abort('second')
    expect([c.signal.aborted, c.signal.reason]).toEqual([true, 'first'])
    const d = new Cancellation()
    const signal = d.signal
    d.abort('one')
    d.abort('two')
    expect(signal.reason).toBe('one')
  })
})

describe('pagination cursors', () => {
  const cursor = (text: string) => Buffer.from(text).toString('base64url')
  const items = [1, 2, 3, 4]

  it('gives no next cursor when the page ends the list exactly', () => {
    expect(page(items, 'tools', undefined, 4)).toEqual({ items })
    const first = page(items, 'tools', undefined, 2)
    expect(first.items).toEqual([1, 2])
    expect(page(items, 'tools', first.nextCursor, 2)).toEqual({ items: [3, 4] })
  })

  it('takes an offset of 0, and refuses a cursor of another list, even one whose name is as long', () => {
    expect(page(items, 'tools', cursor('tools:0'), 2).items).toEqual([1, 2])
    expect(() => page(items, 'tools', cursor('tasks:2'), 2)).toThrow('Invalid cursor')
    expect(() => page(items, 'tools', cursor('tools:-1'), 2)).toThrow('Invalid cursor')
  })
})

describe('capabilities a tool requires', () => {
  it('names what the client lacks, down to the nested member, and nothing when it has all', () => {
    expect(missingCapabilities({ sampling: {} }, { sampling: {} })).toBeUndefined()
    expect(missingCapabilities({ sampling: {}, roots: {} }, { roots: { listChanged: true } })).toEqual({ sampling: {} })
    expect(missingCapabilities({ elicitation: { url: {} } }, { elicitation: { form: {} } })).toEqual({ elicitation: { url: {} } })
    expect(missingCapabilities({ elicitation: { url: {} } }, { elicitation: { form: {}, url: {} } })).toBeUndefined()
    expect(missingCapabilities({ sampling: { tools: {} } }, { sampling: true as never })).toEqual({ sampling: { tools: {} } })
  })
})
