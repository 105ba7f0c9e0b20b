import type { IndexEntry } from './git-index.ts'
import type { ObjectStore, TreeEntry } from './git-objects.ts'
import type { Pace } from './pacer.ts'

const TREE = 0o040000
const kind = (mode: number) => mode & 0o170000

/**
 * The index against HEAD's tree (porcelain's first column): `A` added, `M` modified, `T` type
 * changed, `D` deleted. Renames are not paired: a staged rename is its `D` and its `A`. Only
 * the trees of HEAD whose id differs from the index's own (`indexTrees`, index-trees.ts) are
 * read, so after a commit HEAD costs one commit and one tree. Conflicted (stages 1–3) and
 * intent-to-add entries are left to the caller.
 */
export async function stagedChanges(
  entries: IndexEntry[],
  indexTrees: Map<string, string>,
  headCommit: string | null,
  objects: ObjectStore,
  pace: Pace,
): Promise<Map<string, string>> {
  const changes = new Map<string, string>()
  const head = new Map<string, TreeEntry>()
  const identical = new Set<string>()
  const walk = async (oid: string, prefix: string) => {
    if (indexTrees.get(prefix) === oid) return void identical.add(prefix)
    if (pace.due()) await pace.rest()
    for (const entry of objects.tree(oid)) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name
      if (kind(entry.mode) === TREE) await walk(entry.oid, path)
      else head.set(path, entry)
    }
  }
  if (headCommit) await walk(objects.commitTree(headCommit), '')
  if (identical.has('')) return changes

  const underIdentical = (path: string) => {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      if (identical.has(path.slice(0, slash))) return true
    }
    return false
  }
  const indexed = new Set<string>()
  for (const entry of entries) {
    indexed.add(entry.path)
    if (entry.stage !== 0 || entry.intentToAdd || underIdentical(entry.path)) continue
    const before = head.get(entry.path)
    if (!before) changes.set(entry.path, 'A')
    else if (before.oid !== entry.oid || before.mode !== entry.mode) {
      changes.set(entry.path, kind(before.mode) === kind(entry.mode) ? 'M' : 'T')
    }
  }
  for (const path of head.keys()) if (!indexed.has(path)) changes.set(path, 'D')
  return changes
}
