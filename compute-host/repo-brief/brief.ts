import { realpath } from 'node:fs/promises'
import { createBriefAdmission } from './admission.ts'
import { createBriefCache } from './cache.ts'
import { composeRepoBrief, type RepoBrief } from './compose.ts'
import { createExportCache } from './export-cache.ts'
import { createExportWarmer } from './export-warmer.ts'
import { takeInventory, type Inventory } from './inventory.ts'
import { createWatchedFingerprints } from './tree-watch.ts'

export { composeRepoBrief, queryTerms } from './compose.ts'
export type { BriefFile, RepoBrief } from './compose.ts'
export { RepoBriefBusy } from './admission.ts'

// Two cores on the smallest host: three briefs keep both busy while one waits on the disk.
const CONCURRENT_BRIEFS = 3
const WAITING_BRIEFS = 12
const CACHED_BRIEFS = 64
// An inventory holds every path of its repository: a few per repository in use.
const CACHED_INVENTORIES = 8

// One of each per host process: every caller (the HTTP route, the agents' tool, the preflight of
// a run) shares the cap and the cache.
const admission = createBriefAdmission(CONCURRENT_BRIEFS, WAITING_BRIEFS)
const cache = createBriefCache<RepoBrief>(CACHED_BRIEFS)
// What a new query on an unchanged tree reuses: its inventory (git status and file list) and the
// symbols of files already read under the same fingerprint (no stamp needed for those).
type Tree = { inventory: Inventory; symbols: Map<string, string[]> }
const inventories = createBriefCache<Tree>(CACHED_INVENTORIES)
// Inventories being taken, by tree key: a brief that finds its tree's under way waits for that one
// instead of taking a second (the start's warm-up and a first question, or two first questions).
const taking = new Map<string, Promise<Tree>>()
const exports = createExportCache()
// The rest of a repository's sources, parsed in the background after its first brief.
const warmer = createExportWarmer(exports)
// Fingerprints that skip the walk while the tree's watches report nothing (tree-watch.ts).
const fingerprints = createWatchedFingerprints()
process.once('exit', () => fingerprints.close())

/**
 * The repository brief for a query, as every caller gets it: admitted under the host's cap
 * (REPO_BRIEF_BUSY past it), answered from the cache when the tree's fingerprint and the query
 * are unchanged, built otherwise (reusing the tree's inventory and each unchanged file's symbols
 * when only the query is new). `signal` (the request's) withdraws a waiting brief and stops a
 * running one, its status read included.
 *
 * What is built is cached under the fingerprint taken before building, with no second walk after
 * it: everything the build reads is at least as new as that fingerprint, and a change during the
 * build moves some entry's ctime, which cannot move back, so that fingerprint never recurs and a
 * brief of a tree that changed under it is never served.
 */
export async function buildRepoBrief(
  root: string,
  query: string,
  signal?: AbortSignal,
): Promise<RepoBrief> {
  const lease = await admission.acquire(signal)
  try {
    signal?.throwIfAborted()
    const canonical = await realpath(root)
    const before = await fingerprints.fingerprint(canonical, signal)
    const key = before && JSON.stringify([canonical, before, query])
    const cached = key ? cache.get(key) : undefined
    if (cached) return structuredClone(cached)
    const treeKey = before && JSON.stringify([canonical, before])
    const { tree, taken } = await treeOf(canonical, treeKey, signal)
    const brief = await composeRepoBrief(canonical, query, signal, {
      inventory: tree.inventory,
      exports,
      treeSymbols: tree.symbols,
    })
    if (key) cache.set(key, brief)
    // After this brief's own parses, not beside them: it is the one being waited for.
    if (taken) warmer.start(canonical, tree.inventory)
    return structuredClone(brief)
  } finally {
    lease.release()
  }
}

/**
 * The tree's inventory under `treeKey` (its fingerprint): the one kept from an earlier brief, the
 * one another brief is taking now, or a new one (`taken`), kept for the next. A shared taking that
 * fails (its own brief was withdrawn) is taken again under this brief's signal.
 */
async function treeOf(
  canonical: string,
  treeKey: string | null | undefined,
  signal?: AbortSignal,
): Promise<{ tree: Tree; taken: boolean }> {
  const known = treeKey ? inventories.get(treeKey) : undefined
  if (known) return { tree: known, taken: false }
  const shared = treeKey ? taking.get(treeKey) : undefined
  if (shared) {
    const tree = await waitFor(shared, signal).catch((error: unknown) => {
      if (signal?.aborted) throw error
      return undefined
    })
    if (tree) return { tree, taken: false }
  }
  const pending = takeInventory(canonical, signal).then((inventory) => {
    const tree = { inventory, symbols: new Map<string, string[]>() }
    if (treeKey) inventories.set(treeKey, tree)
    return tree
  })
  if (treeKey) {
    taking.set(treeKey, pending)
    const forget = () => {
      if (taking.get(treeKey) === pending) taking.delete(treeKey)
    }
    pending.then(forget, forget)
  }
  return { tree: await pending, taken: true }
}

/** `promise`, or the signal's reason as soon as it aborts (the promise itself goes on). */
function waitFor<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  signal.throwIfAborted()
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

/**
 * Readies `root`'s briefs before any question: the tree's fingerprint and inventory are taken
 * and its sources parsed in the background, so a first question waits only for its own
 * composition. A brief asked meanwhile shares the inventory being taken. Under the same cap as
 * briefs (REPO_BRIEF_BUSY past it); resolves once the inventory is kept, before the parsing ends.
 */
export async function warmRepoBrief(root: string, signal?: AbortSignal): Promise<void> {
  const lease = await admission.acquire(signal)
  try {
    signal?.throwIfAborted()
    const canonical = await realpath(root)
    const fingerprint = await fingerprints.fingerprint(canonical, signal)
    const treeKey = fingerprint && JSON.stringify([canonical, fingerprint])
    const { tree } = await treeOf(canonical, treeKey, signal)
    warmer.start(canonical, tree.inventory)
  } finally {
    lease.release()
  }
}

/** How many briefs run and wait now (for tests and the fault suite). */
export const repoBriefStats = () => admission.stats()

/** How many sources' symbols are cached, across repositories (tests). */
export const cachedSourceCount = () => exports.size

/** Resolves once no background parse of a repository's sources is running (tests, bench). */
export const repoBriefWarmIdle = () => warmer.idle()

/** The brief as Markdown, byte-identical for identical briefs. */
export function formatRepoBrief(brief: RepoBrief): string {
  const lines = [
    `# Repository brief`,
    `query: ${brief.query}`,
    `terms: ${brief.terms.join(', ') || '(none)'}`,
    `head: ${brief.head ?? (brief.git ? 'no commits' : 'not a git repository')}`,
    `ready for implementation: ${brief.readyForImplementation ? 'yes' : 'no'}`,
    '',
    '## Relevant files',
  ]
  if (brief.files.length === 0) lines.push('(no file matched the query)')
  for (const f of brief.files) {
    lines.push(`- ${f.path} (score ${f.score}${f.change ? `, changed: ${f.change}` : ''})`)
    if (f.exports.length > 0) lines.push(`  exports: ${f.exports.join(', ')}`)
    if (f.tests.length > 0) lines.push(`  tests: ${f.tests.join(', ')}`)
  }
  lines.push('', '## Change state')
  if (brief.changed.length === 0) lines.push('(clean)')
  for (const c of brief.changed) lines.push(`- ${c.status} ${c.path}`)
  return `${lines.join('\n')}\n`
}
