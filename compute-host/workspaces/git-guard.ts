import { relative, sep } from 'node:path'
import { AppError } from '../../runtime/errors.ts'

export const GitWriteRefused = AppError.define(
  'GIT_WRITE_REFUSED',
  403,
  'popagent does not let agents write inside .git',
)

/**
 * The file tools' rule for git's own files: an agent may read `.git` but never write, create,
 * delete, copy or move anything whose path goes through a `.git` component (issue 14, hole 4).
 * Whatever lands there is run by the owner's git later, as the owner: `core.fsmonitor`,
 * `core.pager` or an alias in `.git/config`, or an executable `.git/hooks/pre-commit`.
 *
 * - Any `.git` component counts, not only the repository root's: a nested repository or a
 *   submodule (whose `.git` is a file naming its git directory) is run by the same git.
 * - `.git` itself as a file (a gitdir link at the root) counts: rewriting it moves the
 *   repository's git directory somewhere the agent controls.
 * - Names are compared as git itself compares them on case-insensitive and Windows/macOS
 *   filesystems (read-tree's verify_dotfile, is_ntfs_dotgit, is_hfs_dotgit): `.GIT`, `.Git`,
 *   a trailing dot or space (`.git.`), the 8.3 short name `git~1`, and `.git` with Unicode
 *   characters that HFS+ ignores. On an ext4 casefold directory `.GIT` *is* `.git`.
 *
 * Callers apply it twice: to the path the agent gave (lexically), and to where the opened
 * directory or file really is (after links), so `link-to-git/config` is refused too.
 */
export function gitComponent(root: string, absolutePath: string): string | undefined {
  const rel = relative(root, absolutePath)
  if (rel === '' || rel.startsWith('..')) return undefined
  return rel.split(sep).find(isGitName)
}

/** Throws GitWriteRefused when `absolutePath` (inside `root`) goes through a `.git` component. */
export function refuseGitWrite(root: string, absolutePath: string, given: string): void {
  const component = gitComponent(root, absolutePath)
  if (component === undefined) return
  throw new GitWriteRefused(
    { path: given },
    {
      message:
        `popagent does not let agents write inside .git: ${JSON.stringify(given)} goes through ` +
        `${JSON.stringify(component)}; git configuration and hooks stay as the owner left them`,
    },
  )
}

// Code points HFS+ ignores in names (git's is_hfs_dotgit list).
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g

export function isGitName(name: string): boolean {
  const plain = name.replace(HFS_IGNORABLE, '').toLowerCase()
  // NTFS drops trailing dots and spaces; `git~1` is the 8.3 short name of `.git`.
  return plain.replace(/[. ]+$/, '') === '.git' || plain === 'git~1'
}
