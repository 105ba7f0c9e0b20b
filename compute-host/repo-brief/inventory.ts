import { readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { sandboxedGit } from './sandboxed-git.ts'

const MAX_FILES = 50_000
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
  /** Porcelain status per changed path (`M`, `A`, `D`, `R`, `??` …). */
  changes: Map<string, string>
  head: string | null
  git: boolean
}

/**
 * What is in the repository, from fixed git commands only (nothing from the request reaches a
 * command line), run sandboxed: tracked and untracked-but-not-ignored files, the change state and
 * HEAD. A directory that is not a git repository (or a host without bubblewrap) is walked
 * instead, skipping dependency and build folders. Paths are repository-relative, sorted.
 */
export async function takeInventory(root: string, signal?: AbortSignal): Promise<Inventory> {
  const git = (args: string[]) => sandboxedGit(root, args, signal)
  try {
    const listed = await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
    if (listed === undefined) return await walked(root)
    const files = [...new Set(listed.split('\0').filter(Boolean))].sort().slice(0, MAX_FILES)
    const status = (await git(['status', '--porcelain=v1', '-z', '--untracked-files=normal'])) ?? ''
    const changes = new Map<string, string>()
    const entries = status.split('\0')
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!
      if (entry.length < 4) continue
      const code = entry.slice(0, 2).trim()
      changes.set(entry.slice(3), code)
      if (code.startsWith('R') || code.startsWith('C')) i++ // the next entry is the old name
    }
    const head = await git(['rev-parse', '--short=12', 'HEAD']).then(
      (out) => out?.trim() || null,
      () => null,
    )
    return { files, changes, head, git: true }
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
