import { createAttributes } from './git-attributes.ts'
import { parseGitConfig } from './git-config.ts'
import { createIgnoreRules } from './git-ignore.ts'
import { parseIndex, type GitIndex } from './git-index.ts'
import { createObjectStore } from './git-objects.ts'
import { resolveHead, submoduleHead } from './git-refs.ts'
import { indexTreeIds } from './index-trees.ts'
import { createPacer } from './pacer.ts'
import { createRepositoryFiles } from './repository-files.ts'
import { stagedChanges } from './staged-changes.ts'
import { untrackedPaths } from './untracked.ts'
import { worktreeChanges } from './worktree-changes.ts'

const MAX_CONFIG_BYTES = 1024 * 1024
// An index of 256 MiB lists some three million files.
const MAX_INDEX_BYTES = 256 * 1024 * 1024

// Porcelain's code for a conflicted path, by which of stages 1 (base), 2 (ours), 3 (theirs) exist.
const UNMERGED = ['', 'DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']

export type GitStatus = {
  /** Tracked paths and untracked, not ignored ones (`ls-files --cached --others`). */
  files: string[]
  /** Porcelain v1 status per changed path, trimmed (`M`, `A`, `D`, `AM`, `??`, `UU` …). */
  changes: Map<string, string>
  head: string | null
}

/**
 * What `git ls-files`, `git status --porcelain --no-renames --ignore-submodules=dirty` and
 * `git rev-parse HEAD` would say of the repository at `root`, read without git: the index,
 * HEAD's trees and the work tree are read as data (git-index.ts, git-objects.ts, the files named
 * below), so nothing the repository configures (fsmonitor, filters, hooks) can run, and nothing
 * is spawned. Undefined where `root` has no `.git` directory of its own. Throws on an index or
 * HEAD it cannot read, and when `signal` aborts.
 */
export async function readGitStatus(
  root: string,
  signal: AbortSignal,
): Promise<GitStatus | undefined> {
  const files = createRepositoryFiles(root)
  if (!files.lstat('.git')?.isDirectory()) return undefined
  const pace = createPacer(signal)
  const config = parseGitConfig(
    files.lstat('.git/config')?.isFile()
      ? files.read('.git/config', MAX_CONFIG_BYTES).toString('utf8')
      : '',
  )
  const hashBytes = config.objectFormat === 'sha256' ? 32 : 20
  const indexInfo = files.lstat('.git/index')
  const index: GitIndex = indexInfo
    ? parseIndex(files.read('.git/index', MAX_INDEX_BYTES), hashBytes)
    : { entries: [] }
  const head = resolveHead(files, '.git')

  const objects = createObjectStore(files, hashBytes)
  let staged: Map<string, string>
  try {
    const trees = indexTreeIds(index.entries, config.objectFormat)
    staged = await stagedChanges(index.entries, trees, head, objects, pace)
  } catch {
    signal.throwIfAborted()
    // HEAD's trees are unreadable (objects borrowed from elsewhere, a damaged pack): the brief
    // goes without the staged column rather than without the whole change state.
    staged = new Map()
  } finally {
    objects.close()
  }
  const worktree = await worktreeChanges(index.entries, {
    files,
    config,
    indexSeconds: indexInfo ? Math.floor(indexInfo.mtimeMs / 1000) : 0,
    lineEndings: createAttributes(files, config),
    submoduleHead: (path) => submoduleHead(files, path),
    pace,
    signal,
  })
  const ignore = createIgnoreRules(files)
  const untracked = await untrackedPaths(files, index.entries, ignore.excluded, pace)

  const changes = new Map<string, string>()
  const conflicts = new Map<string, number>()
  for (const entry of index.entries) {
    if (entry.stage)
      conflicts.set(entry.path, (conflicts.get(entry.path) ?? 0) | (1 << (entry.stage - 1)))
  }
  for (const path of new Set([...staged.keys(), ...worktree.keys()])) {
    if (conflicts.has(path)) continue
    changes.set(path, `${staged.get(path) ?? ' '}${worktree.get(path) ?? ' '}`.trim())
  }
  for (const [path, stages] of conflicts) changes.set(path, UNMERGED[stages]!)
  // Listed after the tracked changes, as porcelain does: `git rm --cached x` leaves `D` then `??`.
  for (const path of untracked.shown) changes.set(path, '??')
  const listed = new Set(index.entries.map((e) => e.path))
  for (const path of untracked.listed) listed.add(path)
  return { files: [...listed].sort(), changes, head }
}
