/** Newline-delimited input split into lines within a byte limit (adapters/node/lines.ts), as stdio reads it. */
import { describe, expect, it } from 'vitest'
import { LineSplitter } from '../../adapters/node/lines.js'

function splitter(limit: number) {
  const lines: string[] = []
  let tooLong = 0
  const split = new LineSplitter(limit, (line) => void lines.push(line), () => void tooLong++)
  return { split, lines, tooLong: () => tooLong }
}

describe('LineSplitter', () => {
  it('gives each line whole, however the chunks cut it, bytes of one character across two chunks included', () => {
    const { split, lines } = splitter(100)
    const text = Buffer.from('first\nsecönd\nthi')
    split.push(text.subarray(0, 9))
    split.push(text.subarray(9))
    split.push('rd\n')
    expect(lines).toEqual(['first', 'secönd', 'third'])
  })

  it('drops a line over the limit once it is over, says so once, and reads the next line as usual', () => {
    const { split, lines, tooLong } = splitter(8)
    split.push('12345')
    split.push('67890')
    split.push('abcdefghi')
    expect(tooLong()).toBe(1)
    split.push('jk\nok\n')
    expect(lines).toEqual(['ok'])
    expect(tooLong()).toBe(1)
  })

  it('takes a line of exactly the limit, and refuses one byte more in a single chunk', () => {
    const { split, lines, tooLong } = splitter(4)
    split.push('abcd\nabcde\nxy\n')
    expect(lines).toEqual(['abcd', 'xy'])
    expect(tooLong()).toBe(1)
  })

  it('at the end of input, a last line without its newline is a line; the rest of a line over the limit is not', () => {
    const ended = splitter(10)
    ended.split.push('done')
    ended.split.end()
    expect(ended.lines).toEqual(['done'])
    const nothing = splitter(10)
    nothing.split.push('a\n')
    nothing.split.end()
    expect(nothing.lines).toEqual(['a'])
    const over = splitter(3)
    over.split.push('toolong')
    over.split.end()
    expect(over.lines).toEqual([])
  })
})
