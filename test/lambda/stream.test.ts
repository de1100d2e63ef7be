/**
 * Writing a Response to a streaming Lambda function's response stream (adapters/lambda/stream.ts), on a real
 * node:stream Writable as the runtime's is: the prelude where no awslambda global writes it, the batching and
 * padding that get small writes past Lambda's hold, backpressure, and ending on every path.
 */
import { describe, expect, it } from 'vitest'
import { send } from '../../adapters/lambda/stream.js'
import { Recorder } from '../helpers/recorder.js'

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const PRELUDE = { statusCode: 200, headers: { 'content-type': 'text/event-stream' } }

/** A body that gives `parts` in turn, each after the wait before it (ms), then ends, unless `open`. */
function body(parts: (string | number)[], open = false) {
  let cancelled: unknown = 'not cancelled'
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const part of parts) {
        if (typeof part === 'number') await wait(part)
        else controller.enqueue(new TextEncoder().encode(part))
      }
      if (!open) controller.close()
    },
    cancel(reason) {
      cancelled = reason
    },
  })
  return { stream, cancelled: () => cancelled }
}

describe('send(): a Response onto a streaming function\'s response stream', () => {
  it('without the runtime\'s awslambda global writes the prelude itself: its content type, the JSON, 8 NULs, then the body', async () => {
    const out = new Recorder()
    await send(out, () => PRELUDE, body(['hello']).stream, { flushBytes: 0, stop: new AbortController().signal })
    expect(out.contentType).toBe('application/vnd.awslambda.http-integration-response')
    expect(out.calls.slice(0, 2)).toEqual([JSON.stringify(PRELUDE), '\0'.repeat(8)])
    expect(out.body()).toBe('hello')
    expect(out.writableEnded).toBe(true)
  })

  it('writes once even for a response without a body (the prelude goes out with the first write), and ends', async () => {
    const out = new Recorder()
    await send(out, () => ({ statusCode: 202 }), null, { flushBytes: 0, stop: new AbortController().signal })
    expect(out.calls).toEqual([JSON.stringify({ statusCode: 202 }), '\0'.repeat(8), ''])
    expect(out.writableEnded).toBe(true)
  })

  it('without padding, writes each chunk as it comes', async () => {
    const out = new Recorder()
    await send(out, () => PRELUDE, body(['a', 30, 'b']).stream, { flushBytes: 0, stop: new AbortController().signal })
    expect(out.body()).toBe('ab')
    expect(out.batches.slice(-2)).toEqual([['a'], ['b']])
  })

  it('with padding, sends a burst in one write topped up to flushBytes once a pause shows it is over', async () => {
    const out = new Recorder()
    await send(out, () => PRELUDE, body(['ab', 'cd', 40, 'e']).stream, { flushBytes: 64, stop: new AbortController().signal })
    const pad = (bytes: number) => `:${' '.repeat(bytes - 3)}\n\n`
    // The burst and its padding in one batch (one segment), 64 bytes in all; the last chunk at the end, unpadded.
    expect(out.batches.slice(-2)).toEqual([['ab', 'cd', pad(60)], ['e']])
    expect(out.batches.at(-2)!.join('')).toHaveLength(64)
    expect(out.writableEnded).toBe(true)
  })

  it('with padding, sends chunks that reach flushBytes at once, without padding', async () => {
    const out = new Recorder()
    await send(out, () => PRELUDE, body(['abcd', 'efgh', 40]).stream, { flushBytes: 4, stop: new AbortController().signal })
    expect(out.batches.slice(-2)).toEqual([['abcd'], ['efgh']])
  })

  it('waits for the stream to drain when it asks, and loses nothing', async () => {
    const out = new Recorder(5, 1)
    const parts = Array.from({ length: 20 }, (_, i) => `part ${i};`)
    await send(out, () => PRELUDE, body(parts).stream, { flushBytes: 0, stop: new AbortController().signal })
    expect(out.body()).toBe(parts.join(''))
  })

  it('on stop, cancels the body with its reason, writes nothing more and ends the stream', async () => {
    const out = new Recorder()
    const stop = new AbortController()
    const { stream, cancelled } = body(['first'], true)
    const sent = send(out, () => PRELUDE, stream, { flushBytes: 0, stop: stop.signal })
    await wait(20)
    const reason = new Error('The function reached its deadline')
    stop.abort(reason)
    await sent
    expect(cancelled()).toBe(reason)
    expect(out.body()).toBe('first')
    expect(out.writableEnded).toBe(true)
  })

  it('stops writing, and cancels the body, when the stream is destroyed under it', async () => {
    const out = new Recorder(0, 1)
    const { stream, cancelled } = body(['first', 20, 'second', 20, 'third'])
    const sent = send(out, () => PRELUDE, stream, { flushBytes: 0, stop: new AbortController().signal })
    await wait(10)
    out.destroy()
    await sent
    expect(out.calls.join('')).not.toContain('third')
    expect(cancelled()).not.toBe('not cancelled')
  })
})
