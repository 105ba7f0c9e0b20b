import { constants } from 'node:fs'
import { lstat, open, readlink, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { within } from '../workspaces/containment.ts'
import { refuseGitWrite } from '../workspaces/git-guard.ts'
import { PinnedEscape } from '../workspaces/pinned-io.ts'

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants

/**
 * The two operations undo needs beyond pinned-io's reads and writes, done the same way: the
 * parent directory is opened one component at a time with O_NOFOLLOW (a link anywhere on the
 * path is refused, not followed), each proven inside the repository and outside any `.git`, and
 * the name is then acted on through `/proc/self/fd/N/<name>`, from that very directory.
 */
async function pinnedParent(root: string, path: string): Promise<FileHandle> {
  const parts = path.split('/')
  parts.pop()
  let current = await open(root, O_RDONLY | O_DIRECTORY | O_NONBLOCK)
  try {
    for (const part of ['', ...parts]) {
      if (part) {
        const next = await open(
          `/proc/self/fd/${current.fd}/${part}`,
          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK,
        )
        await current.close()
        current = next
      }
      const where = await readlink(`/proc/self/fd/${current.fd}`)
      if (!within(root, where)) throw new PinnedEscape(path)
      refuseGitWrite(root, join(where, 'x'), path)
    }
    return current
  } catch (error) {
    await current.close().catch(() => undefined)
    throw error
  }
}

const nameOf = (path: string) => path.split('/').at(-1)!

/** Removes the regular file at `path` (repository-relative); anything else is refused. */
export async function unlinkPinned(root: string, path: string): Promise<void> {
  const parent = await pinnedParent(root, path)
  try {
    const name = `/proc/self/fd/${parent.fd}/${nameOf(path)}`
    const seen = await lstat(name)
    if (!seen.isFile()) throw new Error(`${JSON.stringify(path)} is no longer a regular file`)
    await unlink(name)
  } finally {
    await parent.close()
  }
}

/** Sets the mode of the regular file at `path` with fchmod on a no-follow handle. */
export async function chmodPinned(root: string, path: string, mode: number): Promise<void> {
  const parent = await pinnedParent(root, path)
  try {
    const handle = await open(
      `/proc/self/fd/${parent.fd}/${nameOf(path)}`,
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
    )
    try {
      const stats = await handle.stat()
      if (!stats.isFile() || stats.nlink > 1) throw new Error(`${JSON.stringify(path)} changed`)
      await handle.chmod(mode)
    } finally {
      await handle.close()
    }
  } finally {
    await parent.close()
  }
}
