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

export type Captured = { state: FileState; content?: Buffer }
export type TreeState = {
  files: Map<string, Captured>
  /** Why the walk stopped early, if it did: paths past it were not watched. */
  truncated?: string
}

/** Whether the walk looks at this repository-relative path (`a/b/c`). */
export function walked(path: string): boolean {
  const parts = path.split('/')
  return parts.slice(0, -1).every((p) => !skippedDir(p)) && !isGitName(parts.at(-1) ?? '')
}

function skippedDir(name: string): boolean {
  return SKIP_DIRS.has(name) || EXTRA_SKIPS.has(name) || isGitName(name)
}

export const hashOf = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** Reads the working tree's state, bounded as above. `root` is canonical. */
export async function readTree(root: string): Promise<TreeState> {
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
        const captured = await captureFile(root, path, budget)
        if (captured) files.set(path, captured)
      }
    }
  }
  return { files, ...(truncated && { truncated }) }
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
): Promise<Captured | null> {
  const absolute = join(root, ...path.split('/'))
  const seen = await lstat(absolute).catch(() => undefined)
  if (!seen) return null
  if (seen.isSymbolicLink()) {
    return { state: { kind: 'link', target: await readlink(absolute).catch(() => '') } }
  }
  const mode = seen.mode & 0o7777
  const unkept = (reason: string): Captured => ({
    state: { kind: 'unkept', size: seen.size, mode, mtimeMs: Math.floor(seen.mtimeMs), reason },
  })
  // Never opened: a fifo would hold a blocking open, and only regular files are kept.
  if (!seen.isFile()) return unkept(`not a regular file: ${kindOf(seen)}`)
  if (seen.size > MAX_FILE_BYTES) {
    return unkept(`${seen.size} bytes, over the ${MAX_FILE_BYTES}-byte cap per file`)
  }
  if (seen.size > budget.bytes) {
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
  budget.bytes -= content.length
  return { state: { kind: 'file', hash: hashOf(content), size: content.length, mode }, content }
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
