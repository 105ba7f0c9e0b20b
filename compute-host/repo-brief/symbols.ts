import type { ExportCache } from './export-cache.ts'
import { exportedSymbols, loadTypeScript } from './exports.ts'
import type { createSourceReader } from './source-reader.ts'

/** A TypeScript or JavaScript source the brief reads the exports of (tests are listed, not read). */
export const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/
export const TEST = /(\.|_)(test|spec)\.[a-z]+$|(^|\/)(__tests__|tests?)\//
export const isBriefSource = (path: string) => SOURCE.test(path) && !TEST.test(path)

/** Sources larger than this are not parsed (generated bundles, fixtures). */
export const MAX_SOURCE_BYTES = 256 * 1024

/**
 * A source's exported symbols: from the cache while its lstat stamp is unchanged, otherwise read
 * through the brief's contained reader and parsed, and kept only when the file is still what was
 * stamped before the read (an edit during the read leaves nothing stale behind).
 */
export async function symbolsOf(
  root: string,
  path: string,
  reader: ReturnType<typeof createSourceReader>,
  cache: ExportCache,
): Promise<string[]> {
  const stamp = cache.stamp(root, path)
  const known = stamp && cache.get(root, path, stamp)
  if (known) return known
  const text = await reader.read(path)
  if (text === undefined) return []
  const exports = exportedSymbols(await loadTypeScript(), path, text)
  if (stamp && cache.stamp(root, path) === stamp) cache.set(root, path, stamp, exports)
  return exports
}
