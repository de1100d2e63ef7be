/**
 * Newline-delimited input split into lines by hand, in bytes, so that one endless line cannot take all
 * memory: a line over `limit` bytes is dropped (and `tooLong` called once) as soon as it is over.
 */
export class LineSplitter {
  #pending: Buffer[] = []
  #pendingBytes = 0
  /** The line under way went over the limit: the rest of it, up to its newline, is dropped. */
  #overflow = false

  constructor(readonly limit: number, readonly onLine: (line: string) => void, readonly tooLong: () => void) {}

  push(chunk: Buffer | string): void {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let newline: number
    while ((newline = data.indexOf(0x0a)) >= 0) {
      const line = Buffer.concat([...this.#pending, data.subarray(0, newline)])
      this.#pending = []
      this.#pendingBytes = 0
      data = data.subarray(newline + 1)
      if (this.#overflow) this.#overflow = false
      else if (line.byteLength <= this.limit) this.onLine(line.toString('utf8'))
      else this.tooLong()
    }
    this.#pendingBytes += data.byteLength
    if (this.#pendingBytes > this.limit) {
      if (!this.#overflow) this.tooLong()
      this.#overflow = true
      this.#pending = []
      this.#pendingBytes = 0
    } else if (data.byteLength > 0) this.#pending.push(data)
  }

  /** The input ended: a last line without its newline is a line too. */
  end(): void {
    if (this.#pendingBytes > 0 && !this.#overflow) this.onLine(Buffer.concat(this.#pending).toString('utf8'))
  }
}
