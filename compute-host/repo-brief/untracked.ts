import type { IndexEntry } from './git-index.ts'
import type { Pace } from './pacer.ts'
import type { RepositoryFiles } from './repository-files.ts'

const SUBMODULE = 0o160000

export type Untracked = {
  /** What `ls-files --others --exclude-standard` lists: each file; a nested repository, `dir/`. */
  listed: string[]
  /** What `git status --untracked-files=normal` shows: a wholly untracked directory as `dir/`. */
  shown: string[]
}

/**
 * The untracked, not ignored paths of the work tree, found as git finds them: directories that
 * hold tracked files are walked, each untracked entry is checked against the ignore rules (an
 * ignored directory is not entered, and nothing under it can be re-included), a directory with
 * no tracked file is shown once, as `dir/`, when it holds anything untracked, and a directory
 * holding its own `.git` is a nested repository, never entered. `.git` itself, links (listed,
 * not followed), fifos, sockets and devices are never opened.
 */
export async function untrackedPaths(
  files: RepositoryFiles,
  entries: IndexEntry[],
  excluded: (path: string, directory: boolean) => boolean,
  pace: Pace,
): Promise<Untracked> {
  const tracked = new Set<string>()
  const trackedDirectories = new Set<string>()
  const submodules = new Set<string>()
  for (const entry of entries) {
    tracked.add(entry.path)
    if ((entry.mode & 0o170000) === SUBMODULE) submodules.add(entry.path)
    for (let slash = entry.path.lastIndexOf('/'); slash > 0;) {
      const directory = entry.path.slice(0, slash)
      if (trackedDirectories.has(directory)) break
      trackedDirectories.add(directory)
      slash = directory.lastIndexOf('/')
    }
  }
  const listed: string[] = []
  const shown: string[] = []
  const join = (directory: string, name: string) => (directory ? `${directory}/${name}` : name)

  const nestedRepository = (directory: string) => {
    const dotGit = files.lstat(`${directory}/.git`)
    return (
      !!dotGit?.isFile() || (!!dotGit?.isDirectory() && !!files.lstat(`${directory}/.git/HEAD`))
    )
  }

  // Everything untracked under a directory that holds no tracked file.
  const inside = async (directory: string): Promise<string[]> => {
    if (nestedRepository(directory)) return [`${directory}/`]
    const found: string[] = []
    for (const entry of files.readDir(directory)) {
      if (pace.due()) await pace.rest()
      if (entry.name === '.git') continue
      const path = join(directory, entry.name)
      if (entry.isDirectory()) {
        if (!excluded(path, true)) for (const p of await inside(path)) found.push(p)
      } else if ((entry.isFile() || entry.isSymbolicLink()) && !excluded(path, false)) {
        found.push(path)
      }
    }
    return found
  }

  const walk = async (directory: string, ignoredAbove: boolean): Promise<void> => {
    for (const entry of files.readDir(directory)) {
      if (pace.due()) await pace.rest()
      if (entry.name === '.git') continue
      const path = join(directory, entry.name)
      if (entry.isDirectory()) {
        if (submodules.has(path)) continue
        if (trackedDirectories.has(path)) {
          await walk(path, ignoredAbove || excluded(path, true))
        } else if (!ignoredAbove && !excluded(path, true)) {
          const untracked = await inside(path)
          // Status does not show a directory standing where a tracked file was (git filters
          // untracked names that are index entries); its files are still listed.
          if (untracked.length > 0 && !tracked.has(path)) shown.push(`${path}/`)
          for (const p of untracked) listed.push(p)
        }
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (tracked.has(path) || ignoredAbove || excluded(path, false)) continue
        shown.push(path)
        listed.push(path)
      }
    }
  }
  await walk('', false)
  return { listed, shown }
}
