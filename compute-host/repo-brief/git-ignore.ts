import type { RepositoryFiles } from './repository-files.ts'
import { wildmatch, type Matcher } from './wildmatch.ts'

type Rule = { match: Matcher; negative: boolean; directoryOnly: boolean; basename: boolean }

const MAX_IGNORE_BYTES = 4 * 1024 * 1024

/**
 * `.gitignore` rules as git applies them to untracked paths: `.git/info/exclude` first, then
 * each directory's `.gitignore` from the root down, the last matching rule of the deepest file
 * deciding (`!` re-includes). A `.gitignore` that is a link is not followed (git refuses those
 * too). The user's global excludes file is not read: the sandboxed git did not see it either.
 */
export function createIgnoreRules(files: RepositoryFiles) {
  const loaded = new Map<string, Rule[]>()
  const rulesOf = (file: string): Rule[] => {
    let rules = loaded.get(file)
    if (!rules) {
      const info = files.lstat(file)
      rules = []
      if (info?.isFile()) {
        try {
          rules = parseIgnore(files.read(file, MAX_IGNORE_BYTES).toString('utf8'))
        } catch {
          // Unreadable: no rules, as git.
        }
      }
      loaded.set(file, rules)
    }
    return rules
  }

  return {
    /** Whether an untracked `path` (a directory when `directory`) is ignored. */
    excluded(path: string, directory: boolean): boolean {
      const slash = path.lastIndexOf('/')
      const name = path.slice(slash + 1)
      // The last matching rule of one file decides, if any matches.
      const decide = (rules: Rule[], relative: string): boolean | undefined => {
        for (let i = rules.length - 1; i >= 0; i--) {
          const rule = rules[i]!
          if (rule.directoryOnly && !directory) continue
          if (rule.match.test(rule.basename ? name : relative)) return !rule.negative
        }
        return undefined
      }
      // Deepest first: the directory holding `path`, its parents, the root, then info/exclude.
      let base = slash < 0 ? '' : path.slice(0, slash)
      for (;;) {
        const file = base ? `${base}/.gitignore` : '.gitignore'
        const decided = decide(rulesOf(file), base ? path.slice(base.length + 1) : path)
        if (decided !== undefined) return decided
        if (base === '') break
        const up = base.lastIndexOf('/')
        base = up < 0 ? '' : base.slice(0, up)
      }
      return decide(rulesOf('.git/info/exclude'), path) ?? false
    },
  }
}

/** One ignore file's rules, in file order. */
export function parseIgnore(text: string): Rule[] {
  const rules: Rule[] = []
  for (let line of text.replace(/^\uFEFF/, '').split('\n')) {
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (line === '' || line.startsWith('#')) continue
    line = trimTrailingSpaces(line)
    const negative = line.startsWith('!')
    if (negative) line = line.slice(1)
    const directoryOnly = line.endsWith('/')
    if (directoryOnly) line = line.slice(0, -1)
    if (line === '') continue
    const basename = !line.includes('/')
    if (line.startsWith('/')) line = line.slice(1)
    rules.push({ match: wildmatch(line), negative, directoryOnly, basename })
  }
  return rules
}

/** Trailing spaces go unless quoted with a backslash (`a\ ` keeps its space). */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i
    } else {
      if (c === '\\') i++
      lastSpace = -1
    }
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace)
}
