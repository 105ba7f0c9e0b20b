type Range = [lo: number, hi: number]
const CLASSES: Record<string, Range[]> = {
  alnum: ranges('azAZ09'),
  alpha: ranges('azAZ'),
  blank: ranges('  \t\t'),
  cntrl: ranges('\x00\x1f\x7f\x7f'),
  digit: ranges('09'),
  graph: ranges('!~'),
  lower: ranges('az'),
  print: ranges(' ~'),
  punct: ranges('!/:@[`{~'),
  space: ranges('  \t\r'),
  upper: ranges('AZ'),
  xdigit: ranges('09afAF'),
}

/** One character's worth of pattern; `star` is `*` within a path component. */
type Token = { lit: number } | { set: Range[]; negated: boolean } | 'any' | 'star'
/** A path component's tokens; `anyDirs` is `**` then `/` (any number of whole components). */
type Component = Token[] | 'anyDirs' | 'anyOne'

export type Matcher = { test(path: string): boolean }

const NEVER: Matcher = { test: () => false }
// No path is longer than PATH_MAX, and matching costs up to pattern × path steps.
const MAX_PATTERN_LENGTH = 4096

/**
 * A git wildmatch pattern (as in `.gitignore` and `.gitattributes`, matched with WM_PATHNAME)
 * over a whole slash-separated path: `*`, `?` and brackets never match a `/`; `**` between
 * slashes (or at either end) matches any number of directories; a backslash quotes the next
 * character. An unterminated bracket matches nothing, as in git. Patterns come from the
 * repository, so matching never backtracks (a regex took seconds on `*a*a*a…b`): like git's
 * `dowild`, each `*` and each `**` then `/` keeps only its latest resume point, so a match costs at most
 * pattern × path steps.
 */
export function wildmatch(pattern: string): Matcher {
  if (pattern.length > MAX_PATTERN_LENGTH) return NEVER
  const components: Component[] = []
  let current: Token[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      if (i + 1 >= pattern.length) return NEVER
      const quoted = pattern[++i]!
      if (quoted === '/') {
        components.push(current)
        current = []
      } else current.push({ lit: quoted.charCodeAt(0) })
    } else if (c === '/') {
      components.push(current)
      current = []
    } else if (c === '*') {
      let stars = 1
      while (pattern[i + 1] === '*') {
        stars++
        i++
      }
      const atStart = i - stars + 1 === 0 || pattern[i - stars] === '/'
      const next = pattern[i + 1]
      if (stars >= 2 && atStart && next === '/') {
        components.push('anyDirs')
        i++
      } else if (stars >= 2 && atStart && next === undefined) {
        // `.*` after a slash: one component (maybe empty), then any more.
        return matcher([...components, 'anyOne', 'anyDirs'])
      } else current.push('star')
    } else if (c === '?') {
      current.push('any')
    } else if (c === '[') {
      const bracket = readBracket(pattern, i)
      if (!bracket) return NEVER
      current.push(bracket.token)
      i = bracket.end
    } else current.push({ lit: c.charCodeAt(0) })
  }
  return matcher([...components, current])
}

function matcher(components: Component[]): Matcher {
  return { test: (path) => matchWild(components, path.split('/'), matchComponent) }
}

const matchComponent = (component: Component, name: string) =>
  component === 'anyOne' ||
  (component !== 'anyDirs' && matchWild(component, name, (token, _, i) => matchOne(token, name, i)))

/**
 * The classic two-pointer wildcard match: `items` against `text`, where `wild` items match any
 * run and every other item matches one unit as `one` says. Only the latest wild item's resume
 * point is kept: placing each wild-free run at its leftmost fit leaves the most room for the
 * rest, so retrying earlier wild items could never help. Used twice: components of a path
 * (`**` then `/` is the wild item) and characters of a component (`*` is).
 */
function matchWild<I, T>(
  items: readonly I[],
  text: ArrayLike<T>,
  one: (item: I, unit: T, at: number) => boolean,
): boolean {
  const wild = (item: I) => item === 'star' || item === 'anyDirs'
  let p = 0
  let t = 0
  let resumeP = -1
  let resumeT = 0
  while (t < text.length) {
    const item = items[p]
    if (p < items.length && wild(item!)) {
      resumeP = ++p
      resumeT = t
    } else if (p < items.length && one(item!, text[t]!, t)) {
      p++
      t++
    } else if (resumeP >= 0) {
      p = resumeP
      t = ++resumeT
    } else return false
  }
  while (p < items.length && wild(items[p]!)) p++
  return p === items.length
}

function matchOne(token: Token, name: string, at: number): boolean {
  const code = name.charCodeAt(at)
  if (token === 'any') return true
  if (token === 'star') return false
  if ('lit' in token) return token.lit === code
  const inSet = token.set.some(([lo, hi]) => code >= lo && code <= hi)
  return inSet !== token.negated
}

/** The bracket expression starting at `start` (it never matches `/`: names hold none). */
function readBracket(pattern: string, start: number): { token: Token; end: number } | undefined {
  let i = start + 1
  let negated = false
  if (pattern[i] === '!' || pattern[i] === '^') {
    negated = true
    i++
  }
  const set: Range[] = []
  // The last lone character, which a following `-` makes the start of a range.
  let single: number | undefined
  for (let first = true; i < pattern.length; i++, first = false) {
    let c = pattern[i]!
    if (c === ']' && !first) return { token: { set, negated }, end: i }
    if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(':]', i + 2)
      const name = close < 0 ? undefined : pattern.slice(i + 2, close)
      if (name === undefined || !(name in CLASSES)) return undefined
      set.push(...CLASSES[name]!)
      single = undefined
      i = close + 1
      continue
    }
    if (c === '-' && single !== undefined && pattern[i + 1] !== ']' && i + 1 < pattern.length) {
      c = pattern[++i]!
      if (c === '\\' && i + 1 < pattern.length) c = pattern[++i]!
      const hi = c.charCodeAt(0)
      if (hi < single) return undefined // a reversed range (`[z-a]`) matches nothing in git either
      set[set.length - 1] = [single, hi]
      single = undefined
      continue
    }
    if (c === '\\' && i + 1 < pattern.length) c = pattern[++i]!
    single = c.charCodeAt(0)
    set.push([single, single])
  }
  return undefined
}

/** Pairs of characters, each the ends of a range. */
function ranges(ends: string): Range[] {
  const out: Range[] = []
  for (let i = 0; i < ends.length; i += 2) out.push([ends.charCodeAt(i), ends.charCodeAt(i + 1)])
  return out
}
