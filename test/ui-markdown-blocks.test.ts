/**
 * The streaming Markdown renderer's block logic without a browser (ui/src/markdown/blocks.ts):
 * a reply lexed slice by slice as it streams, each settled block kept as it was first lexed, ends
 * up exactly as lexing the whole reply at once would make it.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Lexer, type Links, type Token } from 'marked'
import { addDefinitions, lex, sliceFrom } from '../ui/src/markdown/blocks.ts'

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed
  return (below: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return state % below
  }
}

/**
 * What the renderer ends with after the text arrives cut at `cuts`: settled blocks are never
 * lexed again, except a block that may refer to a link definition settled after it (as view.ts
 * does), and a slice that settles nothing doubles the window.
 */
function streamed(text: string, cuts: number[], window: number): Token[] {
  const links: Links = Object.create(null)
  const settled: Token[] = []
  const relink = new Set<number>()
  let settledEnd = 0
  for (const [i, cut] of [...cuts, text.length].entries()) {
    const source = text.slice(0, cut)
    const complete = i === cuts.length
    let size = window
    for (;;) {
      const slice = sliceFrom(source, settledEnd, { complete, links, window: size })
      const before = settled.length
      settled.push(...slice.settled)
      settledEnd = slice.settledEnd
      if (addDefinitions(slice.settled, links)) {
        for (let b = 0; b < before; b++) if (settled[b]!.raw.includes('[')) relink.add(b)
      }
      if (slice.atEnd) break
      size = slice.settled.length === 0 ? size * 2 : window
    }
  }
  for (const b of relink) {
    const again = lex(settled[b]!.raw, links).find((t) => t.type !== 'space')
    assert.ok(again)
    settled[b] = again
  }
  return settled
}

const plain = (tokens: Token[]) => JSON.parse(JSON.stringify(tokens))
const types = (tokens: Token[]) => tokens.filter((t) => t.type !== 'space').map((t) => t.type)

const PIECES = [
  '# Heading\n',
  'A paragraph with *em*, **strong**, `code` and a [link](https://example.com).\n',
  '\n',
  '\n\n',
  '- item\n',
  '  - nested item\n',
  '1. first\n',
  '2) second\n',
  '\t- tab item\n',
  '```ts\nconst x: number = 1\n',
  '```\n',
  '~~~\n',
  '    indented code\n',
  '> quoted\n',
  '| a | b |\n',
  '|---|:-:|\n',
  '| 1 | 2 |\n',
  '<div>\n',
  '</div>\n',
  '<script>alert(1)</script>\n',
  '[ref]: https://example.com/ref "Title"\n',
  'see [ref] and [other][ref]\n',
  '***\n',
  'Setext\n',
  '===\n',
  '---\n',
  '   \n',
  'trailing spaces  \n',
  '- [ ] task\n',
  '- [x] done\n',
  'text &amp; entities &copy;\n',
  'x\t\ty\n',
  'no newline at end',
]

describe('streamed Markdown blocks', () => {
  test('settled slices add up to lexing the whole reply, however it is cut', () => {
    const next = random(42)
    for (let doc = 0; doc < 400; doc++) {
      let text = ''
      const length = 1 + next(30)
      for (let i = 0; i < length; i++) text += PIECES[next(PIECES.length)]
      const cuts: number[] = []
      for (let at = 0; at < text.length;) {
        at += 1 + next(doc % 2 ? 12 : 80)
        if (at < text.length) cuts.push(at)
      }
      const window = [16, 64, 8 * 1024][doc % 3]!
      assert.deepEqual(
        plain(streamed(text, cuts, window)),
        plain(Lexer.lex(text)),
        `document ${doc}: ${JSON.stringify(text)}`,
      )
    }
  })

  test('a long reply delivered at once is lexed a window at a time', () => {
    const text = Array.from(
      { length: 400 },
      (_, i) => `## Part ${i}\n\nSome text for part ${i}.\n\n\`\`\`js\nlet v = ${i}\n\`\`\`\n\n`,
    ).join('')
    const first = sliceFrom(text, 0, { complete: true, links: Object.create(null) })
    assert.equal(first.atEnd, false, 'the first slice stops near the window')
    assert.ok(first.settledEnd > 0 && first.settledEnd <= 8 * 1024 + 200, `${first.settledEnd}`)
    assert.deepEqual(plain(streamed(text, [], 8 * 1024)), plain(Lexer.lex(text)))
  })

  test('the block still streaming in is left open; a finished reply settles every block', () => {
    const links = Object.create(null)
    const open = sliceFrom('# Title\n\nSome text\n\n```ts\nconst a', 0, { complete: false, links })
    assert.deepEqual(types(open.settled), ['heading', 'paragraph'])
    assert.deepEqual(types(open.open), ['code'])
    // A paragraph directly followed by a line that may still join it stays open with it.
    const maybe = sliceFrom('Some text\n#', 0, { complete: false, links })
    assert.deepEqual(types(maybe.settled), [])
    assert.deepEqual(types(maybe.open), ['paragraph', 'heading'])
    const done = sliceFrom('# Title\n\nSome text\n\n```ts\nconst a\n```\n', 0, {
      complete: true,
      links,
    })
    assert.deepEqual(types(done.settled), ['heading', 'paragraph', 'code'])
    assert.deepEqual(done.open, [])
  })
})
