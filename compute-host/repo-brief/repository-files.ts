import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
  type Dirent,
} from 'node:fs'
import { within } from '../workspaces/containment.ts'

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants
const UNSAFE = /(?:^|\/)\.{0,2}(?:\/|$)|\0/

export type RepositoryFiles = ReturnType<typeof createRepositoryFiles>

/**
 * The brief's only way into a repository's files, its `.git` included. An agent can replace any
 * directory with a link to `/etc` or to another repository, so nothing is reached through a link:
 * every directory above a path must be a real directory (lstat, verdicts kept for the brief), a
 * file is opened with O_NOFOLLOW, and what the kernel says was opened (/proc/self/fd, as the
 * pinned reader does) must lie inside `root` and be a regular file, else it is closed unread.
 * O_NONBLOCK keeps a fifo planted as `.git/index` from holding the open (issue 14, hole 7).
 *
 * Everything is synchronous: the reader works in short bursts between event-loop turns (see
 * pacer.ts), and a sync lstat costs a fraction of a promise per file. `root` must be canonical.
 */
export function createRepositoryFiles(root: string) {
  const directories = new Map<string, boolean>([['', true]])

  const realDirectory = (relative: string): boolean => {
    let verdict = directories.get(relative)
    if (verdict === undefined) {
      const slash = relative.lastIndexOf('/')
      verdict =
        realDirectory(slash < 0 ? '' : relative.slice(0, slash)) &&
        !!quietly(() => lstatSync(at(relative), { throwIfNoEntry: false }))?.isDirectory()
      directories.set(relative, verdict)
    }
    return verdict
  }
  const parentOf = (relative: string) => {
    const slash = relative.lastIndexOf('/')
    return slash < 0 ? '' : relative.slice(0, slash)
  }
  // No empty, `.` or `..` component, no NUL: index paths are data an agent can write.
  const safe = (relative: string) => !UNSAFE.test(relative)
  const at = (relative: string) => `${root}/${relative}`

  /** Opens a regular file inside the repository; the caller closes the descriptor. */
  const open = (relative: string): { fd: number; size: number } => {
    if (!safe(relative) || !realDirectory(parentOf(relative))) {
      throw new Error(`not reachable without a link: ${relative}`)
    }
    const fd = openSync(at(relative), O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    try {
      if (!within(root, readlinkSync(`/proc/self/fd/${fd}`))) {
        throw new Error(`outside the repository: ${relative}`)
      }
      const info = fstatSync(fd)
      if (!info.isFile()) throw new Error(`not a regular file: ${relative}`)
      return { fd, size: info.size }
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  return {
    root,
    realDirectory,

    /** lstat of `relative`, or undefined when it is missing or lies beyond a link. */
    lstat(relative: string): Stats | undefined {
      if (!safe(relative) || !realDirectory(parentOf(relative))) return undefined
      return quietly(() => lstatSync(at(relative), { throwIfNoEntry: false }))
    },

    /** The entries of a real directory of the repository (none beyond a link). */
    readDir(relative: string): Dirent[] {
      if (relative !== '' && (!safe(relative) || !realDirectory(relative))) return []
      try {
        return readdirSync(at(relative), { withFileTypes: true })
      } catch {
        return []
      }
    },

    open,

    /** The target of the link at `relative` (the link itself is read, never followed). */
    readLink(relative: string): Buffer {
      if (!safe(relative) || !realDirectory(parentOf(relative))) {
        throw new Error(`not reachable without a link: ${relative}`)
      }
      return readlinkSync(at(relative), { encoding: 'buffer' })
    },

    /** A whole regular file of at most `maxBytes` (larger ones are refused, not cut). */
    read(relative: string, maxBytes: number): Buffer {
      const { fd, size } = open(relative)
      try {
        if (size > maxBytes) throw new Error(`${relative} is over ${maxBytes} bytes`)
        return readAt(fd, 0, size)
      } finally {
        closeSync(fd)
      }
    },
  }
}

// ENOTDIR, ELOOP, EACCES …: a path that cannot be looked at is treated as missing.
function quietly<T>(look: () => T): T | undefined {
  try {
    return look()
  } catch {
    return undefined
  }
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  let filled = 0
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, position + filled)
    if (n === 0) break
    filled += n
  }
  return buffer.subarray(0, filled)
}
