/** A response stream as a streaming Lambda function is given one: a real node:stream Writable that records. */
import { Writable } from 'node:stream'

/** A Writable that records what send() wrote (each call) and what reached the sink together (corked writes arrive as one batch). */
export class Recorder extends Writable {
  readonly calls: string[] = []
  readonly batches: string[][] = []
  contentType: string | undefined
  constructor(readonly delayMs = 0, highWaterMark = 1 << 20) {
    super({ highWaterMark, decodeStrings: true })
  }
  override write(chunk: string | Uint8Array): boolean {
    this.calls.push(Buffer.from(chunk).toString('latin1'))
    return super.write(chunk)
  }
  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.batches.push(chunks.map(({ chunk }) => chunk.toString('latin1')))
    if (this.delayMs > 0) setTimeout(() => done(), this.delayMs)
    else done()
  }
  override _write(chunk: Buffer, _encoding: string, done: (error?: Error | null) => void): void {
    this._writev([{ chunk }], done)
  }
  setContentType(type: string): void {
    this.contentType = type
  }
  /** The bytes of the body: everything after the prelude and its 8 NULs. */
  body(): string {
    const all = this.calls.join('')
    return all.slice(all.indexOf('\0'.repeat(8)) + 8)
  }
}

