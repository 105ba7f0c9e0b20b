import type { Stats } from 'node:fs'
import { blobId, hashFile } from './blob-hash.ts'
import type { LineEndings } from './git-attributes.ts'
import type { GitConfig } from './git-config.ts'
import type { IndexEntry } from './git-index.ts'
import type { Pace } from './pacer.ts'
import type { RepositoryFiles } from './repository-files.ts'

const FILE = 0o100000
const LINK = 0o120000
const SUBMODULE = 0o160000
const HASH = Symbol('hash')
// The index keeps 32 bits of each number.
const u32 = (value: number) => value % 2 ** 32
const seconds = (ms: number) => u32(Math.floor(ms / 1000))

export type WorktreeContext = {
  files: RepositoryFiles
  config: GitConfig
  /** When `.git/index` was last written, in seconds: entries not older may be racily clean. */
  indexSeconds: number
  lineEndings: (path: string) => LineEndings
  submoduleHead: (path: string) => string | undefined
  pace: Pace
  signal: AbortSignal
}

/**
 * The work tree against the index (porcelain's second column), as git decides it without running
 * anything. An entry whose lstat data (size, mtime and ctime seconds, inode, owner) still equals
 * what the index recorded is unchanged, unless it was written in the index's own second (git's
 * racy-clean case); otherwise a different size means modified, and an equal one is settled by
 * hashing the content (blob-hash.ts). Sub-second times are not compared, as git built without
 * USE_NSEC (its default) does not: other tools rewrite the index with rounded nanoseconds, and
 * comparing them would hash every file. A missing file, or one beyond a directory that became a
 * link, is `D`; a file that became a link (or the reverse) is `T`, one that became a fifo `M`; an
 * intent-to-add entry is `A`;
 * a submodule is `M` when another commit is checked out in it (changes inside it are not looked
 * at: git's `--ignore-submodules=dirty`).
 */
export async function worktreeChanges(
  entries: IndexEntry[],
  context: WorktreeContext,
): Promise<Map<string, string>> {
  const changes = new Map<string, string>()
  for (const entry of entries) {
    if (context.pace.due()) await context.pace.rest()
    if (entry.stage !== 0 || entry.skipWorktree) continue
    const info = context.files.lstat(entry.path)
    let change = compareStat(entry, info, context)
    if (change === HASH) change = await compareContent(entry, context)
    if (change) changes.set(entry.path, change)
  }
  return changes
}

function compareStat(
  entry: IndexEntry,
  info: Stats | undefined,
  context: WorktreeContext,
): string | undefined | typeof HASH {
  const type = entry.mode & 0o170000
  if (!info) return 'D'
  if (entry.intentToAdd) return 'A'
  if (type === SUBMODULE) {
    if (!info.isDirectory()) return 'T'
    const checkedOut = context.submoduleHead(entry.path)
    return checkedOut !== undefined && checkedOut !== entry.oid ? 'M' : undefined
  }
  if (info.isDirectory()) return 'D'
  if (type === LINK ? !info.isSymbolicLink() : info.isSymbolicLink()) return 'T'
  // A fifo, socket or device where a file was: git counts it a file, never opened, so modified.
  if (!info.isFile() && type !== LINK) return 'M'
  const executable = (info.mode & 0o100) !== 0
  if (type === FILE && context.config.filemode && executable !== ((entry.mode & 0o100) !== 0)) {
    return 'M'
  }
  const size = u32(info.size)
  const unchanged =
    size === entry.size &&
    seconds(info.mtimeMs) === entry.mtimeSec &&
    seconds(info.ctimeMs) === entry.ctimeSec &&
    u32(info.ino) === entry.ino &&
    u32(info.uid) === entry.uid &&
    u32(info.gid) === entry.gid
  if (unchanged && entry.mtimeSec < context.indexSeconds) return undefined
  // A recorded size of 0 means git never stat'ed the file (or smudged a racy entry): hash it.
  if (size !== entry.size && entry.size !== 0) return 'M'
  return HASH
}

async function compareContent(
  entry: IndexEntry,
  context: WorktreeContext,
): Promise<string | undefined> {
  const algorithm = context.config.objectFormat
  try {
    const oid =
      (entry.mode & 0o170000) === LINK
        ? blobId(algorithm, context.files.readLink(entry.path))
        : await hashFile(
            context.files,
            entry.path,
            algorithm,
            context.lineEndings(entry.path),
            context.pace,
          )
    return oid === entry.oid ? undefined : 'M'
  } catch {
    context.signal.throwIfAborted()
    // Swapped or removed since its lstat: whatever it is now, it is not what was indexed.
    return 'M'
  }
}
