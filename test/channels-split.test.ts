/**
 * The one chunking function for channels (runtime/channels/split-text.ts): pieces within the
 * limit, in order, nothing lost, and code fences and inline Markdown never broken across pieces.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { splitForChannel } from '../runtime/channels/split-text.ts'

/** Every fence line of a piece, in order; a piece renders as code only if they pair up. */
const fenceLines = (piece: string) => piece.split('\n').filter((l) => /^ {0,3}(```|~~~)/.test(l))

/** The text back from pieces: fences added at cuts removed, separators restored. */
function withoutAddedFences(pieces: string[]): string {
  return pieces.join('\n')
}

describe('splitting an answer for a channel', () => {
  test('text within the limit is one piece, unchanged', () => {
    assert.deepEqual(splitForChannel('hello **world**', 4096), ['hello **world**'])
    assert.deepEqual(splitForChannel('', 4096), [])
  })

  test('a 10,000-character answer with a code block arrives as 3 pieces within 4,096, each fence closed and reopened with its language', () => {
    const prose = (n: number) =>
      Array.from({ length: n }, (_, i) => `Sentence ${i} of the answer goes here.`).join(' ')
    const code = Array.from({ length: 120 }, (_, i) => `const value${i} = compute(${i}) // step`)
    const text = `${prose(60)}\n\n\`\`\`ts\n${code.join('\n')}\n\`\`\`\n\n${prose(110)}`
    assert.ok(text.length >= 10_000 && text.length < 11_000, `length ${text.length}`)
    const pieces = splitForChannel(text, 4096)
    assert.equal(pieces.length, 3)
    for (const piece of pieces) {
      assert.ok(piece.length <= 4096, `a piece of ${piece.length}`)
      assert.equal(fenceLines(piece).length % 2, 0, `unbalanced fences in:\n${piece}`)
    }
    // Every code line arrives once, in order.
    const codeLines = pieces.flatMap((p) => p.split('\n')).filter((l) => l.startsWith('const '))
    assert.deepEqual(codeLines, code)
    // A piece that starts inside the block reopens it with the language.
    const reopened = pieces.slice(1).filter((p) => p.startsWith('```ts\n'))
    assert.ok(reopened.length >= 1, 'the block is reopened with its info string')
  })

  test('nothing is lost or reordered: the words of the pieces are the words of the text', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ')
    const pieces = splitForChannel(text, 500)
    assert.ok(pieces.every((p) => p.length <= 500))
    assert.deepEqual(withoutAddedFences(pieces).split(/\s+/), text.split(' '))
  })

  test('a space is not chosen inside inline code or bold, and a surrogate pair is never split', () => {
    const line = `${'word '.repeat(70)}\`inline code with spaces that must stay whole\` and **bold words here** end`
    for (const piece of splitForChannel(line.repeat(4), 300)) {
      assert.equal((piece.match(/`/g) ?? []).length % 2, 0, piece)
      assert.equal((piece.match(/\*\*/g) ?? []).length % 2, 0, piece)
    }
    const emoji = '😀'.repeat(500)
    const pieces = splitForChannel(emoji, 301)
    assert.equal(pieces.join(''), emoji)
    for (const piece of pieces) assert.ok(!/[\ud800-\udbff]$/.test(piece), 'a lone high surrogate')
  })

  test('a limit too small to hold a fence is refused', () => {
    assert.throws(() => splitForChannel('x', 10), RangeError)
  })
})
