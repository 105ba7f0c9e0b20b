import { createHash } from 'node:crypto'
import { lstat, readdir, readlink, realpath } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import type { FileState } from '../../runtime/turn-changes/index.ts'
import { SKIP_DIRS } from '../repo-brief/inventory.ts'
import { within } from '../workspaces/containment.ts'
import { isGitName } from '../workspaces/git-guard.ts'
import { readPinned } from '../workspaces/pinned-io.ts'
import { kindOf } from '../workspaces/regular-file.ts'

/**
 * The state of a repository's working tree as per-turn undo sees it (B3): each regular file by
 * content hash and mode, each symbolic link by its target (never followed), nothing else. The
 * walk skips what the repository brief skips (dependency and build folders, `.git`) and a few
 * caches, and is bounded: a file over MAX_FILE_BYTES, or past the snapshot's byte budget, is kept
 * as size, mode and mtime only (`unkept`), which undo refuses rather than guesses; past
 * MAX_ENTRIES the walk stops and says so.
 */
export const MAX_FILE_BYTES = 1024 * 1024
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
export const MAX_ENTRIES = 20_000
const MAX_VISITED = 100_000
const EXTRA_SKIPS = new Set(['.venv', '__pycache__', '.cache', '.turbo', 'target', '.pytest_cache'])

/** `sig` is what lstat said (kind, size, mode, times, inode): an unchanged one skips the read. */
export type Captured = { state: FileState; content?: Buffer; sig?: string }
export type TreeState = {
  files: Map<string, Captured>
  /** Why the walk stopped early, if it did: paths past it were not watched. */
  truncated?: string
  /** When the walk began (epoch ms). */
  at: number
}

// A file modified this close to (or after) the previous walk's start is read again even when
// lstat looks the same: a write within one timestamp tick keeps size and mtime (git's "racy" case).
const RACY_MS = 3_000

/** Whether the walk looks at this repository-relative path (`a/b/c`). */
export function walked(path: string): boolean {
  const parts = path.split('/')
  return parts.slice(0, -1).every((p) => !skippedDir(p)) && !isGitName(parts.at(-1) ?? '')
}

function skippedDir(name: string): boolean {
  return SKIP_DIRS.has(name) || EXTRA_SKIPS.has(name) || isGitName(name)
}

export const hashOf = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/**
 * Reads the working tree's state, bounded as above. `root` is canonical. With `previous` (an
 * earlier walk), a file whose lstat is unchanged, and not modified close to that walk, keeps its
 * earlier state unread.
 */
export async function readTree(root: string, previous?: TreeState): Promise<TreeState> {
  const at = Date.now()
  const files = new Map<string, Captured>()
  const budget = { bytes: MAX_SNAPSHOT_BYTES }
  const queue = ['']
  let visited = 0
  let truncated: string | undefined
  walk: while (queue.length > 0) {
    const dir = queue.shift()!
    const absolute = join(root, dir)
    // A directory swapped for a link after it was listed is not followed out of the repository.
    if (dir && !within(root, (await realpath(absolute).catch(() => '/')) || '/')) continue
    const entries = await readdir(absolute, { withFileTypes: true }).catch(() => [])
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (++visited > MAX_VISITED || files.size >= MAX_ENTRIES) {
        truncated = `the working tree has more than ${MAX_ENTRIES} files; files past them were not watched`
        break walk
      }
      const path = dir ? `${dir}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!skippedDir(entry.name)) queue.push(path)
      } else if ((entry.isFile() || entry.isSymbolicLink()) && !isGitName(entry.name)) {
        const captured = await captureFile(root, path, budget, previous)
        if (captured) files.set(path, captured)
      }
    }
  }
  return { files, at, ...(truncated && { truncated }) }
}

/**
 * One path's current state: null when absent; `unkept` with the reason when it is a directory,
 * fifo, socket or device. Reads go through pinned-io (no link followed out, no
 * blocking open of a fifo).
 */
export async function captureFile(
  root: string,
  path: string,
  budget: { bytes: number } = { bytes: MAX_FILE_BYTES },
  previous?: TreeState,
): Promise<Captured | null> {
  const absolute = join(root, ...path.split('/'))
  const seen = await lstat(absolute).catch(() => undefined)
  if (!seen) return null
  const sig = [seen.mode, seen.size, seen.mtimeMs, seen.ctimeMs, seen.ino].join(':')
  const known = previous?.files.get(path)
  if (seen.isFile() && seen.size <= MAX_FILE_BYTES) budget.bytes -= seen.size
  if (
    known?.sig === sig &&
    seen.mtimeMs < previous!.at - RACY_MS &&
    seen.ctimeMs < previous!.at - RACY_MS
  ) {
    return { state: known.state, sig }
  }
  if (seen.isSymbolicLink()) {
    return { state: { kind: 'link', target: await readlink(absolute).catch(() => '') }, sig }
  }
  const mode = seen.mode & 0o7777
  const unkept = (reason: string): Captured => ({
    state: { kind: 'unkept', size: seen.size, mode, mtimeMs: Math.floor(seen.mtimeMs), reason },
    sig,
  })
  // Never opened: a fifo would hold a blocking open, and only regular files are kept.
  if (!seen.isFile()) return unkept(`not a regular file: ${kindOf(seen)}`)
  if (seen.size > MAX_FILE_BYTES) {
    return unkept(`${seen.size} bytes, over the ${MAX_FILE_BYTES}-byte cap per file`)
  }
  if (budget.bytes < 0) {
    return unkept(`past the snapshot's ${MAX_SNAPSHOT_BYTES}-byte budget`)
  }
  let content: Buffer
  try {
    content = await readPinned(root, absolute)
  } catch {
    return null
  }
  if (content.length > MAX_FILE_BYTES) {
    return unkept(`${content.length} bytes, over the ${MAX_FILE_BYTES}-byte cap per file`)
  }
  return {
    state: { kind: 'file', hash: hashOf(content), size: content.length, mode },
    content,
    sig,
  }
}

/** Whether two states are the same file state (absent counts). */
export function sameState(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b
  if (a.kind === 'file' && b.kind === 'file') return a.hash === b.hash && a.mode === b.mode
  if (a.kind === 'unkept' && b.kind === 'unkept') {
    return a.size === b.size && a.mtimeMs === b.mtimeMs && a.mode === b.mode
  }
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target
  return false
}

/** A path given as the file tools take it, relative to the repository (`a/b`), or undefined. */
export function repositoryPath(root: string, given: unknown): string | undefined {
  if (typeof given !== 'string' || !given || given.includes('\u0000')) return undefined
  const rel = relative(root, join(given.startsWith('/') ? '' : root, given))
  if (!rel || rel.startsWith('..') || rel.startsWith(sep)) return undefined
  return rel.split(sep).join('/')
}
