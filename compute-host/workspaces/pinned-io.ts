import { constants } from 'node:fs'
import { mkdir, open, readlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, relative, sep } from 'node:path'
import { within } from './containment.ts'

/**
 * File reads and writes that cannot be redirected out of a repository by a link swapped after
 * the containment check. Node has no openat(), so Linux's /proc/self/fd stands in for it:
 *
 * - a name is opened first, then the kernel is asked where the opened object really is (the
 *   link /proc/self/fd/N names the object, not the path used to reach it); an object outside
 *   the repository is closed unread and unwritten;
 * - a directory, once opened and proven inside, is used as `/proc/self/fd/N/<name>`, which the
 *   kernel resolves from that very directory, whatever its path has become since;
 * - a new file is created with O_EXCL | O_NOFOLLOW, so a link planted at its name (dangling or
 *   not) makes the create fail instead of following it.
 */
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_APPEND } = constants

export class PinnedEscape extends Error {
  readonly path: string
  constructor(path: string) {
    super(`the opened file lies outside the repository: ${JSON.stringify(path)}`)
    this.path = path
  }
}

export type PinnedWrite = {
  /** Create missing parent directories (each one created inside the pinned parent). */
  createParents: boolean
  /** `replace` truncates, `append` appends, `create` fails when the name exists. */
  mode: 'replace' | 'append' | 'create'
}

const viaFd = (handle: FileHandle, name: string) => `/proc/self/fd/${handle.fd}/${name}`

async function pinnedInside(root: string, handle: FileHandle, path: string): Promise<FileHandle> {
  const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
  if (where !== undefined && within(root, where)) return handle
  await handle.close()
  throw new PinnedEscape(path)
}

/** Reads a file whose path was checked; refuses it if what was opened is outside `root`. */
export async function readPinned(root: string, absolutePath: string): Promise<Buffer> {
  const handle = await pinnedInside(root, await open(absolutePath, O_RDONLY), absolutePath)
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** Writes `data` to `absolutePath` (inside `root`) through directories pinned one by one. */
export async function writePinned(
  root: string,
  absolutePath: string,
  data: Buffer,
  options: PinnedWrite,
): Promise<void> {
  const parent = await openParent(root, absolutePath, options.createParents)
  let file: FileHandle | undefined
  try {
    const name = viaFd(parent, basename(absolutePath))
    if (options.mode !== 'create') {
      // An existing file (or a link to one) is opened where it is, then proven inside.
      const existing = await open(name, O_WRONLY | (options.mode === 'append' ? O_APPEND : 0))
        .then((h) => pinnedInside(root, h, absolutePath))
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined
          throw error
        })
      if (existing && options.mode === 'replace') await existing.truncate(0)
      file = existing
    }
    // EEXIST here is either a real file (create mode) or a link to nothing: never followed.
    file ??= await open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)
    await file.writeFile(data)
  } finally {
    await file?.close()
    await parent.close()
  }
}

async function openParent(root: string, absolutePath: string, create: boolean) {
  const parts = relative(root, dirname(absolutePath)).split(sep).filter(Boolean)
  let current = await pinnedInside(root, await open(root, O_RDONLY | O_DIRECTORY), root)
  for (const part of parts) {
    const next = viaFd(current, part)
    try {
      if (create) {
        await mkdir(next).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error
        })
      }
      const opened = await open(next, O_RDONLY | O_DIRECTORY)
      await current.close()
      current = await pinnedInside(root, opened, absolutePath)
    } catch (error) {
      await current.close().catch(() => undefined)
      throw error
    }
  }
  return current
}
