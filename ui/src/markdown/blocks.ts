/**
 * Which blocks of a streaming reply are settled. Re-lexing a whole long reply on every chunk is
 * what makes streamed Markdown janky, so the renderer lexes only from the end of the settled
 * blocks, at most about `window` characters at a time. Every top-level block before the last one
 * is settled: Markdown decides a block's extent from the lines it spans and the next block's
 * start, so text appended later can change the last block only (a paragraph turning into a setext
 * heading or a table, an open code fence closing). Link reference definitions are the exception
 * (they reach backwards); the renderer re-renders earlier blocks when one arrives. No DOM here:
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
 * where a block most likely ends) is lexed, and every block before its last non-blank one settles.
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
    settle = tokens.length - 1
    while (settle >= 0 && tokens[settle]!.type === 'space') settle--
    settle = Math.max(0, settle)
  }
  const settled = tokens.slice(0, settle)
  let settledEnd = from
  for (const token of settled) settledEnd += token.raw.length
  return { settled, open: atEnd ? tokens.slice(settle) : [], settledEnd, atEnd }
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
