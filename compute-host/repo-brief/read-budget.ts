import type { GitObject } from './git-pack.ts'

export type ReadBudget = ReturnType<typeof createReadBudget>

/**
 * What one brief may spend reading objects, shared by all its packs. `.git` is the agent's to
 * write: a few kilobytes of deltas can each inflate to the object limit, so inflated bytes are
 * counted (past the limit every read throws, and the brief goes without the staged column),
 * and decoded objects are kept by size, oldest dropped first, rather than by count.
 */
export function createReadBudget(maxInflatedBytes: number, maxCachedBytes: number) {
  let inflated = 0
  let cachedBytes = 0
  const cache = new Map<string, GitObject>()
  return {
    /** Counts `bytes` about to be inflated; throws when that would pass the limit. */
    spend(bytes: number) {
      if (inflated + bytes > maxInflatedBytes) throw new Error('object read budget spent')
      inflated += bytes
    },
    cached: (key: string) => cache.get(key),
    keep(key: string, object: GitObject) {
      const size = object.data.length
      if (size > maxCachedBytes) return
      for (const [oldest, old] of cache) {
        if (cachedBytes + size <= maxCachedBytes) break
        cache.delete(oldest)
        cachedBytes -= old.data.length
      }
      cache.set(key, object)
      cachedBytes += size
    },
  }
}
