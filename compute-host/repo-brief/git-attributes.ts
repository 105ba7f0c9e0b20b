import type { GitConfig } from './git-config.ts'
import type { RepositoryFiles } from './repository-files.ts'
import { wildmatch, type Matcher } from './wildmatch.ts'

/** How git would turn a work-tree file into a blob: as is, CRLF to LF, or CRLF to LF if text. */
export type LineEndings = 'as-is' | 'text' | 'auto'

type Value = true | false | string | undefined
type Line = { match: Matcher; basename: boolean; settings: [name: string, value: Value][] }

const MAX_ATTRIBUTES_BYTES = 4 * 1024 * 1024
const WANTED = new Set(['text', 'crlf', 'eol'])

/**
 * The line-ending handling git applies to a path when it hashes it (`text`, `eol`, the old
 * `crlf`, `binary`, and `core.autocrlf` where no attribute says), from `.gitattributes` files
 * from the root down and `.git/info/attributes`, later and deeper lines winning. That conversion
 * is built into git, so it is reproduced; `filter`, `ident` and `working-tree-encoding` are not
 * (a filter is a program the repository names, which the brief never runs), and macros other
 * than `binary` are not expanded. Files are read only for paths that need hashing.
 */
export function createAttributes(files: RepositoryFiles, config: GitConfig) {
  const loaded = new Map<string, Line[]>()
  const linesOf = (file: string): Line[] => {
    let lines = loaded.get(file)
    if (!lines) {
      lines = []
      if (files.lstat(file)?.isFile()) {
        try {
          lines = parseAttributes(files.read(file, MAX_ATTRIBUTES_BYTES).toString('utf8'))
        } catch {
          // Unreadable: no attributes, as git.
        }
      }
      loaded.set(file, lines)
    }
    return lines
  }

  return function lineEndings(path: string): LineEndings {
    const parts = path.split('/')
    const name = parts.at(-1)!
    const state = new Map<string, Value>()
    const apply = (lines: Line[], relative: string) => {
      for (const line of lines) {
        if (!line.match.test(line.basename ? name : relative)) continue
        for (const [key, value] of line.settings) state.set(key, value)
      }
    }
    // Lowest precedence first: the root's file, then deeper ones, then info/attributes.
    for (let depth = 0; depth < parts.length; depth++) {
      const base = parts.slice(0, depth).join('/')
      apply(
        linesOf(base ? `${base}/.gitattributes` : '.gitattributes'),
        parts.slice(depth).join('/'),
      )
    }
    apply(linesOf('.git/info/attributes'), path)

    const action = (value: Value): 'text' | 'binary' | 'auto' | undefined =>
      value === true || value === 'input'
        ? 'text'
        : value === false
          ? 'binary'
          : value === 'auto'
            ? 'auto'
            : undefined
    let decided = action(state.get('text')) ?? action(state.get('crlf'))
    const eol = state.get('eol')
    if (decided !== 'binary' && decided !== 'auto' && (eol === 'lf' || eol === 'crlf')) {
      decided = 'text'
    }
    decided ??= config.autocrlf === 'false' ? 'binary' : 'auto'
    return decided === 'binary' ? 'as-is' : decided
  }
}

/** One attributes file's lines that set line-ending attributes, in file order. */
export function parseAttributes(text: string): Line[] {
  const lines: Line[] = []
  for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
    const line = raw.replace(/\r$/, '').trimStart()
    if (line === '' || line.startsWith('#')) continue
    const split = splitPattern(line)
    if (!split) continue
    let { pattern } = split
    // Macro definitions, negative and directory patterns assign nothing to a file.
    if (pattern.startsWith('[attr]') || pattern.startsWith('!') || pattern.endsWith('/')) continue
    const settings: [string, Value][] = []
    for (const word of split.rest.split(/[ \t]+/).filter(Boolean)) {
      if (word === 'binary') settings.push(['text', false])
      else if (word.startsWith('-')) settings.push([word.slice(1), false])
      else if (word.startsWith('!')) settings.push([word.slice(1), undefined])
      else if (word.includes('='))
        settings.push([word.split('=')[0]!, word.slice(word.indexOf('=') + 1)])
      else settings.push([word, true])
    }
    const wanted = settings.filter(([key]) => WANTED.has(key))
    if (wanted.length === 0) continue
    const basename = !pattern.includes('/')
    if (pattern.startsWith('/')) pattern = pattern.slice(1)
    lines.push({ match: wildmatch(pattern), basename, settings: wanted })
  }
  return lines
}

/** The pattern (C-quoted when it starts with `"`) and the rest of the line. */
function splitPattern(line: string): { pattern: string; rest: string } | undefined {
  if (!line.startsWith('"')) {
    const end = line.search(/[ \t]/)
    return end < 0
      ? { pattern: line, rest: '' }
      : { pattern: line.slice(0, end), rest: line.slice(end) }
  }
  let pattern = ''
  for (let i = 1; i < line.length; i++) {
    const c = line[i]!
    if (c === '"') return { pattern, rest: line.slice(i + 1) }
    if (c === '\\' && i + 1 < line.length) {
      const next = line[++i]!
      pattern +=
        ({ n: '\n', t: '\t', '"': '"', '\\': '\\' } as Record<string, string>)[next] ?? next
    } else pattern += c
  }
  return undefined
}
