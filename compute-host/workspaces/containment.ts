import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { AppError } from '../../runtime/errors.ts'

export const PathOutsideRoot = AppError.define(
  'PATH_OUTSIDE_ROOT',
  400,
  'the path must stay inside the workspace root',
)
export const PathNotDirectory = AppError.define(
  'PATH_NOT_A_DIRECTORY',
  400,
  'the path is not an existing directory under the workspace root',
)

/**
 * Resolves a repository path given relative to `root` and proves it stays inside once every
 * symbolic link is followed. Absolute paths, `..` escapes, NUL bytes and links that lead out are
 * refused; the answer is the canonical path relative to the canonical root.
 */
export async function resolveInside(root: string, given: string): Promise<string> {
  if (given.includes('\u0000'))
    throw new PathOutsideRoot({ path: given }, { message: 'the path holds a NUL byte' })
  if (isAbsolute(given) || /^[a-zA-Z]:[\\/]/.test(given) || given.startsWith('\\')) {
    throw new PathOutsideRoot(
      { path: given },
      { message: 'give the path relative to the workspace root' },
    )
  }
  const realRoot = await realpath(root)
  const lexical = resolve(realRoot, given)
  if (!within(realRoot, lexical)) throw new PathOutsideRoot({ path: given })
  let real: string
  try {
    real = await realpath(lexical)
  } catch {
    throw new PathNotDirectory({ path: given })
  }
  if (!within(realRoot, real)) {
    throw new PathOutsideRoot(
      { path: given },
      { message: 'the path leads outside the workspace root through a link' },
    )
  }
  if (real === realRoot) {
    throw new PathOutsideRoot(
      { path: given },
      { message: 'a workspace is a directory inside the workspace root, not the root itself' },
    )
  }
  if (!(await stat(real)).isDirectory()) throw new PathNotDirectory({ path: given })
  return relative(realRoot, real).split(sep).join('/')
}

/** Whether `candidate` (absolute) is `root` or below it, compared lexically. */
export function within(root: string, candidate: string): boolean {
  const rel = relative(root, candidate)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
