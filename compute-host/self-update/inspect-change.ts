import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { PatchPolicyRefused } from '../../runtime/self-update/errors.ts'
import { patchDigest } from '../../runtime/self-update/patch-digest.ts'
import { checkPatch, type ChangedFile } from '../../runtime/self-update/patch-policy.ts'
import { inClone, type SelfUpdateClone } from './fresh-clone.ts'
import { hostGit, hostGitText, neutralFilters, type GitOptions } from './host-git.ts'

/** The change an attempt made, measured and bound to its digest. */
export type InspectedChange = {
  baseSha: string
  treeSha: string
  digest: string
  files: ChangedFile[]
  /** The canonical patch, byte for byte what the digest covers and what the import applies. */
  patch: Buffer
}

// Every setting that could make the same change print differently is pinned on the command line.
const CANONICAL_DIFF = [
  'diff',
  '--cached',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--no-relative',
  '--diff-algorithm=myers',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '-O/dev/null',
]

// The listings that go with it: no external diff or textconv program either.
const RAW_DIFF = ['diff', '--cached', '--no-ext-diff', '--no-textconv', '--no-renames']

/**
 * Stages everything in the clone's work tree and measures it against the base: the files with
 * their modes and line counts, the tree, the canonical patch (`--binary --full-index`, so both
 * sides' blob ids are in it) and its digest. Then the patch policy judges it; nothing has run
 * and nobody has reviewed yet.
 */
export async function inspectChange(
  clone: SelfUpdateClone,
  options: { protectedPaths?: readonly string[] } = {},
): Promise<InspectedChange> {
  const { treeSha, patch, files, at } = await stageAndMeasure(clone)
  const touchesPackage = files.some((f) => f.path === 'package.json' && f.status === 'M')
  checkPatch({
    files,
    patch: patch.toString('utf8'),
    patchBytes: patch.length,
    ...(options.protectedPaths && { protectedPaths: options.protectedPaths }),
    ...(touchesPackage && {
      packageJson: {
        before: await hostGitText(['show', `${clone.baseSha}:package.json`], at),
        after: await hostGitText(['show', ':package.json'], at),
      },
    }),
  })
  return {
    baseSha: clone.baseSha,
    treeSha,
    digest: await patchDigest(clone.baseSha, patch),
    files,
    patch,
  }
}

/** The digest of what the clone holds now; verify and commit compare it with the inspected one. */
export async function currentDigest(
  clone: SelfUpdateClone,
): Promise<{ treeSha: string; digest: string }> {
  const { treeSha, patch } = await stageAndMeasure(clone)
  return { treeSha, digest: await patchDigest(clone.baseSha, patch) }
}

async function stageAndMeasure(clone: SelfUpdateClone) {
  const base = inClone(clone)
  const at: GitOptions = { ...base, config: await neutralFilters(base) }
  const submodules = await submodulePaths(at)
  await refuseTouchedSubmodules(clone.workTree, submodules)
  // Submodules are left out of `add`: for each one whose work tree holds a `.git`, add starts a
  // `git status` in there, and that git reads configuration the agent's shell can write (its
  // filters would run on the host). The check above makes sure nothing is lost by leaving them out.
  const excluded = submodules.map((path) => `:(exclude,literal)${path}`)
  await hostGit(['add', '--all', '--', '.', ...excluded], at)
  const treeSha = (await hostGitText(['write-tree'], at)).trim()
  const raw = await hostGitText(
    [...RAW_DIFF, '--raw', '-z', '--no-abbrev', clone.baseSha, '--'],
    at,
  )
  const numstat = await hostGitText([...RAW_DIFF, '--numstat', '-z', clone.baseSha, '--'], at)
  const patch = await hostGit(
    [...CANONICAL_DIFF, '--binary', '--full-index', '-U3', clone.baseSha, '--'],
    at,
  )
  return { treeSha, patch, files: parseDiff(raw, numstat), at }
}

/** The paths the index records as submodules (mode 160000). */
async function submodulePaths(at: GitOptions): Promise<string[]> {
  const listing = await hostGitText(['ls-files', '--stage', '-z'], at)
  return listing
    .split('\0')
    .filter((entry) => entry.startsWith('160000 '))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1))
}

/**
 * A submodule's directory in the clone is left empty by the checkout, and self-update never
 * changes a submodule: anything in there (files, or a `.git` that makes it a repository of its
 * own), or the directory gone or replaced, is refused by name rather than silently left out.
 */
async function refuseTouchedSubmodules(workTree: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const full = join(workTree, path)
    const info = await lstat(full).catch(() => undefined)
    const empty = info?.isDirectory() === true && (await readdir(full)).length === 0
    if (!empty) {
      throw new PatchPolicyRefused(
        { path },
        { message: `${path} is a submodule; self-update does not change submodules` },
      )
    }
  }
}

/** Joins `--raw -z` (modes, status) with `--numstat -z` (line counts; `-` for binary) by path. */
export function parseDiff(raw: string, numstat: string): ChangedFile[] {
  const counts = new Map<string, [number | null, number | null]>()
  for (const entry of numstat.split('\0').filter(Boolean)) {
    const [added, deleted, path] = entry.split('\t')
    const count = (n: string | undefined) => (n === '-' || n === undefined ? null : Number(n))
    counts.set(path!, [count(added), count(deleted)])
  }
  const files: ChangedFile[] = []
  const parts = raw.split('\0')
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!.replace(/^:/, '').split(' ')
    const path = parts[i + 1]!
    const [added, deleted] = counts.get(path) ?? [null, null]
    const status = meta[4]![0] as ChangedFile['status']
    files.push({ path, status, oldMode: meta[0]!, newMode: meta[1]!, added, deleted })
  }
  return files
}
