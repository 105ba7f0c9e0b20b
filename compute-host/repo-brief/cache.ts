/**
 * The newest briefs, keyed by repository, tree fingerprint and query, at most `limit` of them:
 * a hit moves to the back, and an insert past the limit drops the least recently used. A brief
 * is a few kilobytes, so the bound is about memory only in the adversarial case of many queries.
 */
export function createBriefCache<T>(limit: number) {
  const entries = new Map<string, T>()
  return {
    get(key: string): T | undefined {
      const value = entries.get(key)
      if (value === undefined) return undefined
      entries.delete(key)
      entries.set(key, value)
      return value
    },
    set(key: string, value: T) {
      entries.delete(key)
      entries.set(key, value)
      while (entries.size > limit) entries.delete(entries.keys().next().value!)
    },
    get size() {
      return entries.size
    },
    clear: () => entries.clear(),
  }
}
