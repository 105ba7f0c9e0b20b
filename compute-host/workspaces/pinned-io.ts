import { constants } from 'node:fs'
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { within } from './containment.ts'
import { refuseGitWrite } from './git-guard.ts'
import { hardLinked, kindOf, notRegular } from './regular-file.ts'

/**
 * File reads and writes that cannot be redirected out of a repository by a link swapped after
 * the containment check. Node has no openat(), so Linux's /proc/self/fd stands in for it:
 *
 * - a directory is opened first, then the kernel is asked where the opened object really is (the
 *   link /proc/self/fd/N names the object, not the path used to reach it); one outside the
 *   repository is closed unused;
 * - a directory, once opened and proven inside, is used as `/proc/self/fd/N/<name>`, which the
 *   kernel resolves from that very directory, whatever its path has become since;
 * - the file itself is opened by name in its pinned parent with O_NOFOLLOW, so a link planted at
 *   its name is never followed by the open: a link is resolved to its canonical path, checked,
 *   and that path opened the same way; a new file is created with O_EXCL | O_NOFOLLOW, so a link
 *   at its name (dangling or not) makes the create fail instead of following it;
 * - every open is O_NONBLOCK and what was opened must be a regular file (fstat): a fifo the
 *   agent made with `mkfifo` would otherwise hold the open, and one of libuv's four pool
 *   threads, until a writer came — four of them froze every file and DNS call of the host
 *   (issue 14, hole 7). Opening a fifo for reading with O_NONBLOCK returns at once; for writing
 *   it fails with ENXIO, as a socket does. O_NONBLOCK changes nothing for regular files.
 * - writes refuse what lies inside a `.git` (git-guard.ts), by where the pinned parent and the
 *   opened file really are, and refuse a file with more than one name (a hard link): its other
 *   name may be `.git/config` or outside the repository, where no check of this name reaches.
 */
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_APPEND, O_NONBLOCK } =
  constants

// A link is followed by resolving it and opening its canonical path, whose last component may
// have been swapped for a link again in between; past this many rounds the race is refused.
const MAX_LINK_HOPS = 8

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
// Errors name the path as the agent sees it: relative to the repository, no host path.
const shown = (root: string, absolutePath: string) => relative(root, absolutePath) || '.'
const whereIs = (handle: FileHandle) =>
  readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)

/** The real path of what `handle` holds, when that is inside `root`; otherwise closed, refused. */
async function pinnedInside(root: string, handle: FileHandle, path: string): Promise<string> {
  const where = await whereIs(handle)
  if (where !== undefined && within(root, where)) return where
  await handle.close()
  throw new PinnedEscape(path)
}

/** Reads a regular file whose path was checked; refuses it if what was opened is outside `root`. */
export async function readPinned(root: string, absolutePath: string): Promise<Buffer> {
  const handle = await openFile(root, absolutePath, O_RDONLY)
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
  const flags = O_WRONLY | (options.mode === 'append' ? O_APPEND : 0)
  let file: FileHandle | undefined
  try {
    if (options.mode !== 'create') {
      file = await openFile(root, absolutePath, flags, options).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      })
    }
    if (options.mode === 'replace') await file?.truncate(0)
    // No file there: created in the pinned parent, never through a link at the name.
    file ??= await createFile(root, absolutePath, options.createParents)
    await file.writeFile(data)
  } finally {
    await file?.close()
  }
}

/** Opens the existing regular file at `absolutePath` by its name in its pinned parent. */
async function openFile(
  root: string,
  absolutePath: string,
  flags: number,
  write?: PinnedWrite,
  hops = 0,
): Promise<FileHandle> {
  const parent = await openParent(root, absolutePath, write)
  let handle: FileHandle | undefined
  try {
    const name = viaFd(parent.handle, basename(absolutePath))
    // Looked at first, so a fifo, socket or device is not even opened in the ordinary case; a
    // swap after this look is met by O_NONBLOCK and the fstat below.
    const seen = await lstat(name)
    if (!seen.isFile() && !seen.isSymbolicLink()) {
      throw notRegular(shown(root, absolutePath), kindOf(seen))
    }
    handle = await open(name, flags | O_NOFOLLOW | O_NONBLOCK).catch(async (error) => {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ELOOP') return undefined
      // ENXIO: a fifo nobody reads (write side) or a socket, swapped in after the look.
      if (code === 'ENXIO') throw notRegular(shown(root, absolutePath), 'not a regular file')
      throw error
    })
  } finally {
    await parent.handle.close()
  }
  // ELOOP: the name is a link, which O_NOFOLLOW did not follow.
  if (!handle) return followLink(root, absolutePath, flags, write, hops)
  try {
    const where = await whereIs(handle)
    if (where === undefined || !within(root, where)) throw new PinnedEscape(absolutePath)
    const stats = await handle.stat()
    if (!stats.isFile()) throw notRegular(shown(root, absolutePath), kindOf(stats))
    if (write) {
      refuseGitWrite(root, where, shown(root, absolutePath))
      if (stats.nlink > 1) throw hardLinked(shown(root, absolutePath), stats.nlink)
    }
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** Opens what the link at `absolutePath` resolves to, when that is inside, by its real path. */
async function followLink(
  root: string,
  absolutePath: string,
  flags: number,
  write: PinnedWrite | undefined,
  hops: number,
): Promise<FileHandle> {
  if (hops >= MAX_LINK_HOPS) throw new PinnedEscape(absolutePath)
  const target = await realpath(absolutePath).catch(() => undefined)
  if (target === undefined) {
    // A link to nothing: a read finds no file; a write refuses the name, as the create would.
    const code = write ? 'EEXIST' : 'ENOENT'
    throw Object.assign(new Error(`${code}: a link to nothing: ${absolutePath}`), { code })
  }
  if (!within(root, target)) throw new PinnedEscape(absolutePath)
  const parents = write && { ...write, createParents: false }
  return openFile(root, target, flags, parents, hops + 1)
}

async function createFile(root: string, absolutePath: string, createParents: boolean) {
  const parent = await openParent(root, absolutePath, { createParents })
  try {
    refuseGitWrite(root, join(parent.where, basename(absolutePath)), shown(root, absolutePath))
    const name = viaFd(parent.handle, basename(absolutePath))
    // EEXIST here is either a real file (create mode) or a link: never followed.
    return await open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o644)
  } finally {
    await parent.handle.close()
  }
}

const DIRECTORY = O_RDONLY | O_DIRECTORY | O_NONBLOCK

/**
 * Opens the parent directory of `absolutePath`, pinned. A read opens it in one call and proves
 * where it is (O_DIRECTORY opens nothing but a directory, so a path that now leads outside opens
 * at most a directory, closed unread). A write walks it one pinned component at a time, so each
 * directory is proven inside, and outside any `.git`, before anything is created in it.
 */
async function openParent(
  root: string,
  absolutePath: string,
  write?: { createParents: boolean },
): Promise<{ handle: FileHandle; where: string }> {
  if (!write) {
    const handle = await open(dirname(absolutePath), DIRECTORY)
    return { handle, where: await pinnedInside(root, handle, absolutePath) }
  }
  const parts = relative(root, dirname(absolutePath)).split(sep).filter(Boolean)
  let current = await open(root, DIRECTORY)
  let where = await pinnedInside(root, current, root)
  for (const part of parts) {
    const next = viaFd(current, part)
    try {
      refuseGitWrite(root, join(where, part), shown(root, absolutePath))
      if (write.createParents) {
        await mkdir(next).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error
        })
      }
      const opened = await open(next, DIRECTORY)
      await current.close()
      current = opened
      where = await pinnedInside(root, opened, absolutePath)
    } catch (error) {
      await current.close().catch(() => undefined)
      throw error
    }
  }
  refuseGitWrite(root, where, shown(root, absolutePath))
  return { handle: current, where }
}
