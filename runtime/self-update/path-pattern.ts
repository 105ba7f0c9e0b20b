/**
 * A small glob for the protected-path list: `**` crosses directories, `*` and `?` do not, and a
 * pattern without a slash matches the name at any depth (as in `.gitignore`). Matching ignores
 * case, so `.GitHub/` on a case-insensitive checkout is still `.github/`.
 */
export function pathPattern(glob: string): RegExp {
  const anywhere = !glob.includes('/')
  const body = glob.replace(/^\//, '')
  let source = ''
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!
    if (char === '*' && body[i + 1] === '*') {
      // `**/` is zero or more directories; a trailing `**` is everything below.
      const slash = body[i + 2] === '/'
      source += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${anywhere ? '(?:.*/)?' : ''}${source}$`, 'i')
}

export function matchesAny(path: string, globs: readonly string[]): string | undefined {
  return globs.find((glob) => pathPattern(glob).test(path))
}
