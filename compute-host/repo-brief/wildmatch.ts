const CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9a-fA-F',
}

const NEVER = /(?!)/

/**
 * A git wildmatch pattern (as in `.gitignore` and `.gitattributes`, matched with WM_PATHNAME) as
 * a regular expression over a whole slash-separated path: `*`, `?` and brackets never match a
 * `/`; `**` between slashes (or at either end) matches any number of directories; a backslash
 * quotes the next character. An unterminated bracket matches nothing, as in git.
 */
export function wildmatch(pattern: string): RegExp {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      if (i + 1 >= pattern.length) return NEVER
      out += escape(pattern[++i]!)
    } else if (c === '*') {
      let stars = 1
      while (pattern[i + 1] === '*') {
        stars++
        i++
      }
      const atStart = i - stars + 1 === 0 || pattern[i - stars] === '/'
      const next = pattern[i + 1]
      if (stars >= 2 && atStart && next === '/') {
        out += '(?:.*/)?'
        i++
      } else if (stars >= 2 && atStart && next === undefined) {
        out += '.*'
      } else {
        out += '[^/]*'
      }
    } else if (c === '?') {
      out += '[^/]'
    } else if (c === '[') {
      const bracket = readBracket(pattern, i)
      if (!bracket) return NEVER
      out += bracket.regex
      i = bracket.end
    } else {
      out += escape(c)
    }
  }
  try {
    return new RegExp(`^${out}$`, 's')
  } catch {
    return NEVER // a reversed range (`[z-a]`), which matches nothing in git either
  }
}

/** The bracket expression starting at `start`, as a class that also never matches `/`. */
function readBracket(pattern: string, start: number): { regex: string; end: number } | undefined {
  let i = start + 1
  let negated = false
  if (pattern[i] === '!' || pattern[i] === '^') {
    negated = true
    i++
  }
  let body = ''
  let first = true
  for (; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === ']' && !first) {
      return { regex: negated ? `[^/${body}]` : `(?!/)[${body}]`, end: i }
    }
    first = false
    if (c === '\\' && i + 1 < pattern.length) {
      body += escapeInClass(pattern[++i]!)
    } else if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2)
      const name = close < 0 ? undefined : pattern.slice(i + 2, close)
      if (name === undefined || !(name in CLASSES)) return undefined
      body += CLASSES[name]
      i = close + 1
    } else if (c === '-' && body !== '' && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
      body += '-'
    } else {
      body += escapeInClass(c)
    }
  }
  return undefined
}

const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const escapeInClass = (c: string) => c.replace(/[\]\\^\-[]/g, '\\$&')
