/**
 * Which blocks of a streaming reply are settled. Re-lexing a whole long reply on every chunk is
 * what makes streamed Markdown janky, so the renderer lexes only from the end of the settled
 * blocks, at most about `window` characters at a time, and renders each settled block once.
 *
 * A block is settled when text appended later cannot change it, which Markdown guarantees at
 * these boundaries: a blank line followed by more content (a paragraph ends there for good, and a
 * list or indented code would have taken that content in had it been theirs), and the end of an
 * ATX or setext heading, a thematic break or a closed code fence followed by more content. Without
 * such a boundary a block may still grow: `para` followed by a line `#` is a paragraph and an empty
 * heading, until the line becomes `#tag` and joins the paragraph. Link reference definitions
 * reach backwards; the renderer re-renders earlier blocks when one settles. No DOM here:
 * test/ui-markdown-blocks.test.ts checks that streamed slices add up to lexing the whole reply.
 */
import { Lexer, type Links, type Token } from 'marked'

export const WINDOW = 8 * 1024

export type Slice = {
  /** Blocks that text arriving later cannot change: each is rendered once. */
  settled: Token[]
  /** The blocks after them up to the end of the source; empty unless `atEnd`. */
  open: Token[]
  /** Where the settled blocks end in the source. */
  settledEnd: number
  /** Whether the slice reached the end of the source; otherwise lex again from `settledEnd`. */
  atEnd: boolean
}

/** Lexes blocks with the link definitions seen so far (a reference may precede the slice). */
export function lex(source: string, links: Links): Token[] {
  const lexer = new Lexer({ gfm: true })
  Object.assign(lexer.tokens.links, links)
  return lexer.lex(source)
}

/**
 * The next slice from `from`: the source up to `from + window` (extended to the next blank line,
 * where a block most likely ends) is lexed, and the blocks up to its last settling boundary settle.
 * When the whole source is in and `complete`, every block settles.
 */
export function sliceFrom(
  source: string,
  from: number,
  options: { complete: boolean; links: Links; window?: number },
): Slice {
  const window = options.window ?? WINDOW
  let end = source.length
  if (source.length - from > window) {
    const blank = source.indexOf('\n\n', from + window)
    if (blank !== -1) end = blank + 2
  }
  const atEnd = end === source.length
  const tokens = lex(source.slice(from, end), options.links)
  let settle = tokens.length
  if (!(atEnd && options.complete)) {
    let last = tokens.length - 1
    while (last >= 0 && tokens[last]!.type === 'space') last--
    settle = 0
    for (let i = 0; i < last; i++) if (endsBlock(tokens[i]!)) settle = i + 1
  }
  const settled = tokens.slice(0, settle)
  let settledEnd = from
  for (const token of settled) settledEnd += token.raw.length
  return { settled, open: atEnd ? tokens.slice(settle) : [], settledEnd, atEnd }
}

/** Whether nothing after this token (when more content follows it) can change it or those before. */
function endsBlock(token: Token): boolean {
  switch (token.type) {
    case 'space':
    case 'heading':
    case 'hr':
      return true
    case 'code':
      // A fence followed by more content is closed (an open one runs to the end of the text).
      return token.codeBlockStyle !== 'indented' || /\n[ \t]*\n$/.test(token.raw)
    default:
      // Some blocks (tables, lists) take the blank lines after them into their own text.
      return /\n[ \t]*\n$/.test(token.raw)
  }
}

/**
 * Adds the link reference definitions (`[id]: url "title"`) among settled blocks, nested ones in
 * quotes and lists included, to `into`; the first definition of an id wins, as in the lexer.
 * Returns whether one was new.
 */
export function addDefinitions(tokens: readonly Token[], into: Links): boolean {
  let added = false
  for (const token of tokens) {
    if (token.type === 'def') {
      // The lexer has already normalized the id (lower case, collapsed spaces).
      if (Object.hasOwn(into, token.tag)) continue
      into[token.tag] = { href: token.href, title: token.title }
      added = true
    } else if (token.type === 'list') {
      for (const item of token.items) added = addDefinitions(item.tokens, into) || added
    } else if (token.type === 'blockquote') {
      added = addDefinitions(token.tokens ?? [], into) || added
    }
  }
  return added
}
