/**
 * What handlers return, made into wire results; the requestState codec's refusals and digest; the SSE
 * stream's keep-alives and its end. Unit tests of pure pieces the HTTP tests reach only in part (gaps
 * StrykerJS found).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { digest, stateCodec } from '../../src/exchange/request-state.js'
import { completion, promptResult, resourceContents, toolResult } from '../../src/exchange/results.js'
import { HIGH_WATER_MARK, keepAlive, MAX_BACKLOG, MAX_MESSAGE, sseStream } from '../../src/http/sse.js'

describe('tool, prompt and resource results', () => {
  it('tool results: nothing, text, blocks, structured values and whole results', () => {
    expect(toolResult(undefined)).toEqual({ content: [] })
    expect(toolResult(null as never)).toEqual({ content: [] })
    expect(toolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] })
    expect(toolResult({ n: 1 })).toEqual({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } })
    expect(toolResult({ isError: true } as never)).toEqual({ isError: true, content: [] })
    expect(toolResult({ structuredContent: { n: 2 } } as never)).toEqual({ structuredContent: { n: 2 }, content: [{ type: 'text', text: '{"n":2}' }] })
    const shared = { content: [{ type: 'text' as const, text: 'x' }] }
    expect(toolResult(shared)).not.toBe(shared)
  })

  it('prompt results: text, messages, a whole result; anything else is -32603', () => {
    expect(promptResult('q')).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }] })
    const messages = [{ role: 'assistant' as const, content: { type: 'text' as const, text: 'a' } }]
    expect(promptResult(messages)).toEqual({ messages })
    expect(promptResult({ description: 'd', messages })).toEqual({ description: 'd', messages })
    expect(() => promptResult(7 as never)).toThrow(expect.objectContaining({ code: -32603, message: expect.stringContaining('neither text, messages') }))
  })

  it('resource contents: text and bytes (with the declared mimeType), contents, results; anything else is -32603', () => {
    expect(resourceContents(undefined, 'test://a')).toBeUndefined()
    expect(resourceContents('t', 'test://a')).toEqual([{ uri: 'test://a', text: 't' }])
    expect(resourceContents('t', 'test://a', 'text/plain')).toEqual([{ uri: 'test://a', text: 't', mimeType: 'text/plain' }])
    expect(resourceContents(new Uint8Array([1, 2]), 'test://a')).toEqual([{ uri: 'test://a', blob: 'AQI=' }])
    const text = { uri: 'test://b', text: 'b' }
    const blob = { uri: 'test://c', blob: 'AA==' }
    expect(resourceContents(text, 'test://a')).toEqual([text])
    expect(resourceContents(blob, 'test://a')).toEqual([blob])
    expect(resourceContents([text, blob], 'test://a')).toEqual([text, blob])
    expect(resourceContents({ contents: [text] }, 'test://a')).toEqual([text])
    for (const wrong of [{ uri: 'test://d' }, { text: 'no uri' }, { foo: 1 }]) {
      expect(() => resourceContents(wrong as never, 'test://a')).toThrow(expect.objectContaining({ code: -32603 }))
    }
  })

  it('completions: at most 100 values, with the total and hasMore when there were more', () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`)
    expect(completion(many)).toEqual({ values: many.slice(0, 100), total: 150, hasMore: true })
    expect(completion(many.slice(0, 100))).toEqual({ values: many.slice(0, 100) })
    expect(completion({ values: many, total: 999, hasMore: true })).toEqual({ values: many.slice(0, 100), total: 999, hasMore: true })
  })
})

describe('requestState codec and digest', () => {
  const secret = 'k'.repeat(32)
  const codec = stateCodec(secret)
  const b64 = (text: string) => Buffer.from(text).toString('base64url')
  /** A token with a valid MAC over any body: what only the key's holder could make. */
  async function signed(body: string) {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`s1.${body}`)))
    return `s1.${body}.${Buffer.from(mac).toString('base64url')}`
  }

  it('refuses tokens of the wrong shape or version, and signed payloads that are not states, as -32602 malformed', async () => {
    const good = await codec.seal({ n: 's', m: 'tools/call', d: 'd', x: Date.now() + 60_000, a: {}, s: {} })
    const [, body, mac] = good.split('.')
    for (const token of [`s1.${body}`, `s2.${body}.${mac}`, `${good}.extra`, await signed(b64('not json')), await signed(b64('{"x":1}')), await signed(b64('{"m":"tools/call"}'))]) {
      await expect(codec.open(token)).rejects.toMatchObject({ code: -32602, message: 'Invalid requestState: malformed' })
    }
  })

  it('digests canonically: key order and undefined members do not matter, structure does', async () => {
    expect(await digest({ a: 1, b: [1, 2] })).toBe(await digest({ b: [1, 2], a: 1, c: undefined }))
    const distinct = await Promise.all([[1, 2], [12], [], '[1,2]', { a: [1, 2] }, { a: '1,2' }, null, { a: null }].map(digest))
    expect(new Set(distinct).size).toBe(distinct.length)
  })
})

describe('SSE streams and keep-alives', () => {
  afterEach(() => void vi.useRealTimers())

  it('one timer for all streams, only while one is open; none at all with an interval of 0', () => {
    vi.useFakeTimers()
    const pings: string[] = []
    const alive = keepAlive(10)
    const a = { ping: () => pings.push('a') }
    const b = { ping: () => pings.push('b') }
    alive.add(a)
    alive.add(b)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(10)
    expect(pings).toEqual(['a', 'b'])
    alive.delete(a)
    alive.delete(a)
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(10)
    expect(pings).toEqual(['a', 'b', 'b'])
    alive.delete(b)
    expect(vi.getTimerCount()).toBe(0)
    alive.add(a)
    expect(vi.getTimerCount()).toBe(1)
    alive.delete(a)
    const never = keepAlive(0)
    never.add({ ping: () => pings.push('never') })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a stream pings while open, and leaves the keep-alive timer when it closes or its client leaves', async () => {
    vi.useFakeTimers()
    const alive = keepAlive(10)
    const closed = sseStream(alive, { abort: () => {} })
    const left = sseStream(alive, { abort: () => {} })
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(10)
    closed.close()
    expect(vi.getTimerCount()).toBe(1)
    await left.body.cancel()
    expect(vi.getTimerCount()).toBe(0)
    expect(await new Response(closed.body).text()).toBe(': keep-alive\n\n')
  })

  it('writes nothing after close, and tells of a client that left once', async () => {
    let gone = 0
    const stream = sseStream(keepAlive(0), { abort: () => gone++ })
    stream.write({ n: 1 })
    stream.close()
    stream.write({ n: 2 })
    stream.close()
    expect(await new Response(stream.body).text()).toBe('event: message\ndata: {"n":1}\n\n')
    expect(gone).toBe(0)

    const left = sseStream(keepAlive(0), { abort: () => gone++ })
    await left.body.cancel()
    left.write({ n: 3 })
    expect(gone).toBe(1)
    await left.body.cancel()
    expect(gone).toBe(1)
  })

  it('lets a client go once more than MAX_BACKLOG bytes wait beyond the largest run of writes, not at exactly that many', async () => {
    // An event of `n` ASCII characters takes n + 25 bytes: "event: message\ndata: " + JSON string + "\n\n".
    const event = (bytes: number) => 'x'.repeat(bytes - 25)
    // A synchronous run's writes are weighed once, before its first: the next run begins after a microtask.
    const nextRun = () => Promise.resolve()
    let gone = 0
    const full = sseStream(keepAlive(0), { abort: () => gone++ })
    full.write(event(2 * MAX_BACKLOG))
    await nextRun()
    full.write(event(HIGH_WATER_MARK + MAX_BACKLOG))
    await nextRun()
    // The backlog is now MAX_BACKLOG beyond the largest run, exactly: this run goes, all of it.
    full.write('')
    full.write('')
    expect(gone).toBe(0)
    await nextRun()
    full.write('')
    expect(gone).toBe(1)
    await expect(new Response(full.body).text()).rejects.toThrow('client too slow')
  })

  it('sends a message of MAX_MESSAGE characters; a larger response becomes an error saying so, a larger notification is left out', async () => {
    // `{"a":"…"}` takes 8 characters besides its string.
    const sized = (chars: number) => ({ a: 'x'.repeat(chars - 8) })
    const stream = sseStream(keepAlive(0), { abort: () => {} })
    stream.write(sized(MAX_MESSAGE))
    stream.write(sized(MAX_MESSAGE + 1))
    const response = { jsonrpc: '2.0', id: 3, result: sized(MAX_MESSAGE) }
    stream.write(response)
    stream.close()
    const events = (await new Response(stream.body).text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)))
    expect(events).toEqual([sized(MAX_MESSAGE), {
      jsonrpc: '2.0', id: 3,
      error: { code: -32603, message: `The response is too large for a stream: ${JSON.stringify(response).length} characters of JSON, at most ${MAX_MESSAGE}` },
    }])
  })
})
