import type { Stats } from 'node:fs'
import { lstat, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'

/**
 * The entry at `path` as it is (not following a link), after creating it as a directory private
 * to this user (0700) when there is none. A directory made concurrently by someone else is taken
 * as found: the caller judges what it finds (owner, mode, link) either way.
 */
export async function lstatOrCreatePrivate(path: string): Promise<Stats> {
  const found = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (found) return found
  await mkdir(dirname(path), { recursive: true })
  await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return lstat(path)
}
