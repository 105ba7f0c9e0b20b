import { realpath } from 'node:fs/promises'
import { createBriefAdmission } from './admission.ts'
import { createBriefCache } from './cache.ts'
import { composeRepoBrief, type RepoBrief } from './compose.ts'
import { treeFingerprint } from './fingerprint.ts'

export { composeRepoBrief, queryTerms } from './compose.ts'
export type { BriefFile, RepoBrief } from './compose.ts'
export { RepoBriefBusy } from './admission.ts'

// Two cores on the smallest host: three briefs keep both busy while one waits on the disk.
const CONCURRENT_BRIEFS = 3
const WAITING_BRIEFS = 12
const CACHED_BRIEFS = 64

// One of each per host process: every caller (the HTTP route, the agents' tool, the preflight of
// a run) shares the cap and the cache.
const admission = createBriefAdmission(CONCURRENT_BRIEFS, WAITING_BRIEFS)
const cache = createBriefCache<RepoBrief>(CACHED_BRIEFS)

/**
 * The repository brief for a query, as every caller gets it: admitted under the host's cap
 * (REPO_BRIEF_BUSY past it), answered from the cache when the tree's fingerprint and the query
 * are unchanged, built otherwise. `signal` (the request's) withdraws a waiting brief and stops a
 * running one, its status read included. A brief is cached only when the tree was the same before and after
 * it was built, so a brief of a tree that changed under it is never served again.
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
    const before = await treeFingerprint(canonical, signal)
    const key = before && JSON.stringify([canonical, before, query])
    const cached = key ? cache.get(key) : undefined
    if (cached) return structuredClone(cached)
    const brief = await composeRepoBrief(canonical, query, signal)
    if (key && (await treeFingerprint(canonical, signal)) === before) cache.set(key, brief)
    return structuredClone(brief)
  } finally {
    lease.release()
  }
}

/** How many briefs run and wait now (for tests and the fault suite). */
export const repoBriefStats = () => admission.stats()

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
