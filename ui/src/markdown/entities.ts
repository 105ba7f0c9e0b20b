/**
 * Character references in reply text. The lexer (marked) resolves numeric references itself but
 * leaves named ones for an HTML renderer to resolve; this renderer builds DOM text nodes, never
 * HTML, so it resolves them here. The full HTML table is 2,000+ names (about 24 KB minified);
 * models write a handful, so the common ones are listed and any other name stays as written.
 */

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  times: '×',
  divide: '÷',
  plusmn: '±',
  deg: '°',
  micro: 'µ',
  para: '¶',
  sect: '§',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  rArr: '⇒',
  lArr: '⇐',
  le: '≤',
  ge: '≥',
  ne: '≠',
  asymp: '≈',
  infin: '∞',
  check: '✓',
  zwj: '\u200d',
  zwnj: '\u200c',
  shy: '\u00ad',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
}

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g

function codePoint(n: number): string {
  // CommonMark: 0, surrogates and values past Unicode become the replacement character.
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return '\ufffd'
  return String.fromCodePoint(n)
}

/** The text with its character references resolved, in one pass (`&amp;lt;` stays `&lt;`). */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(REFERENCE, (whole, dec?: string, hex?: string, name?: string) => {
    if (dec) return codePoint(Number.parseInt(dec, 10))
    if (hex) return codePoint(Number.parseInt(hex, 16))
    return (name && Object.hasOwn(NAMED, name) ? NAMED[name] : undefined) ?? whole
  })
}
