import { setImmediate as nextTurn } from 'node:timers/promises'
import type { ExportCache } from './export-cache.ts'
import type { Inventory } from './inventory.ts'
import { mapBounded } from './map-bounded.ts'
import { createSourceReader } from './source-reader.ts'
import { isBriefSource, MAX_SOURCE_BYTES, symbolsOf } from './symbols.ts'

// A brief parses at most 400 sources per question; the cache holds 50,000 across repositories.
const MAX_WARMED = 5_000
// Files in flight: their reads keep libuv's pool busy while one is parsed (map-bounded.ts).
const PARALLEL_READS = 4

/**
 * Parses, in the background, the sources of a repository that no brief has parsed yet, so the
 * next question's brief finds their symbols cached. Reading and parsing the files a new question
 * matched was most of a turn's wait: on a generated repository of 2,400 files, 110 to 170 ms per
 * brief for a new question against 7 ms once the symbols were known.
 *
 * One repository at a time, four files in flight, each parsed in its own turn of the event loop
 * (a parse is a fraction of a millisecond, so a request waits for at most one), through the same contained reader and stamp
 * checks as a brief: what it caches is exactly what a brief would have. A warm of another
 * repository replaces the running one.
 */
export function createExportWarmer(cache: ExportCache) {
  let running: { root: string; stop: AbortController; done: Promise<void> } | undefined

  async function warm(root: string, files: string[], signal: AbortSignal) {
    const reader = createSourceReader(root, MAX_SOURCE_BYTES)
    await mapBounded(files, PARALLEL_READS, async (path) => {
      await nextTurn()
      // Stopped: the workers end at once instead of stepping through the rest of the list.
      signal.throwIfAborted()
      // A file that cannot be read now is left for a brief to report; the warm goes on.
      await symbolsOf(root, path, reader, cache).catch(() => undefined)
    }).catch(() => undefined)
  }

  return {
    /**
     * Starts warming `root`'s sources (canonical path) from its inventory. A warm of the same
     * repository still running is left to finish: briefs parse what a newer inventory adds, and
     * a tree too large for a fingerprint (a new inventory every brief) is not restarted each time.
     */
    start(root: string, inventory: Inventory) {
      if (running?.root === root) return
      running?.stop.abort()
      const stop = new AbortController()
      const files = inventory.files.filter(isBriefSource).slice(0, MAX_WARMED)
      const done = warm(root, files, stop.signal).finally(() => {
        if (running?.stop === stop) running = undefined
      })
      running = { root, stop, done }
    },
    /** Resolves once no warm is running (tests and the bench wait for it). */
    async idle(): Promise<void> {
      while (running) await running.done
    },
  }
}
