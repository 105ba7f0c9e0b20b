import { readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { readGitStatus } from './git-status.ts'

const MAX_FILES = 50_000
// The sandboxed git this replaced had the same bound; past it the brief goes without git.
const GIT_DEADLINE_MS = 10_000
export const SKIP_DIRS = new Set([
  '.git',
  'node_modules',
  'dist',
  'build',
  'coverage',
  '.next',
  'data',
])

export type Inventory = {
  files: string[]
  /** Porcelain status per changed path (`M`, `A`, `D`, `AM`, `??` …). */
  changes: Map<string, string>
  head: string | null
  git: boolean
}

/**
 * What is in the repository: tracked and untracked-but-not-ignored files, the change state and
 * HEAD, read from `.git` as data by git-status.ts, with no git binary, no sandbox and no
 * process, so the brief has its change state wherever popagent runs (docs/notes/
 * repo-brief-git.md has the measurements behind that choice). A directory that is not a git
 * repository, or one whose git data cannot be read within the deadline, is walked instead,
 * skipping dependency and build folders. Paths are repository-relative, sorted.
 */
export async function takeInventory(root: string, signal?: AbortSignal): Promise<Inventory> {
  const deadline = AbortSignal.timeout(GIT_DEADLINE_MS)
  try {
    const status = await readGitStatus(
      root,
      signal ? AbortSignal.any([signal, deadline]) : deadline,
    )
    if (!status) return await walked(root)
    return {
      files: status.files.slice(0, MAX_FILES),
      changes: status.changes,
      head: status.head?.slice(0, 12) ?? null,
      git: true,
    }
  } catch (error) {
    if (signal?.aborted) throw error
    return walked(root)
  }
}

async function walked(root: string): Promise<Inventory> {
  return { files: await walk(root), changes: new Map(), head: null, git: false }
}

async function walk(root: string): Promise<string[]> {
  const files: string[] = []
  const queue = [root]
  while (queue.length > 0 && files.length < MAX_FILES) {
    const dir = queue.shift()!
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.'))
          queue.push(join(dir, entry.name))
      } else if (entry.isFile()) {
        files.push(relative(root, join(dir, entry.name)).split(sep).join('/'))
      }
    }
  }
  return files.sort()
}
