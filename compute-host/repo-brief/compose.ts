import { byCodeUnits } from '../../runtime/code-unit-order.ts'
import { basename, dirname } from 'node:path'
import { createExportCache, type ExportCache } from './export-cache.ts'
import { takeInventory, type Inventory } from './inventory.ts'
import { mapBounded } from './map-bounded.ts'
import { createSourceReader } from './source-reader.ts'
import { isBriefSource, MAX_SOURCE_BYTES, symbolsOf, TEST } from './symbols.ts'

const MAX_PARSED = 400
const MAX_FILES = 12
const MAX_TESTS = 5
const MAX_CHANGED = 30
// Files read and parsed at once: enough to keep libuv's four pool threads busy (mapBounded).
const PARALLEL_READS = 8
// A top match this strong, with its exports matching and a test beside it, is specific enough to
// implement against without a separate research pass.
const READY_SCORE = 8

const STOP_WORDS = new Set(
  'the and for with that this from into when what where which how why are was were will would should could have has had not but all any can our your their its use using add fix make update change please file files code'.split(
    ' ',
  ),
)

export type BriefFile = {
  path: string
  score: number
  exports: string[]
  tests: string[]
  change?: string
}

export type RepoBrief = {
  query: string
  terms: string[]
  head: string | null
  git: boolean
  files: BriefFile[]
  changed: { path: string; status: string }[]
  readyForImplementation: boolean
}

/** Query words: camelCase and punctuation split, lowercased, short and common words dropped. */
export function queryTerms(query: string): string[] {
  const words = query
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !STOP_WORDS.has(w))
  return [...new Set(words)].slice(0, 12)
}

/**
 * A deterministic, read-only brief of a repository for a query: the most relevant source paths
 * with their exported symbols and adjacent tests, plus the change state. It reads the
 * repository's git data and sources as data and runs the TypeScript parser, nothing else: no
 * process, no model, no embeddings, no network. The same tree and query give the same brief.
 * `signal` stops it between files, and within a file being hashed.
 *
 * Callers go through `buildRepoBrief` (brief.ts), which admits, caches and then calls this with
 * the repository's canonical path (realpath: the contained reader compares it with where the
 * kernel says each opened file is).
 */
export async function composeRepoBrief(
  root: string,
  query: string,
  signal?: AbortSignal,
  reuse: {
    /** The repository's inventory, when the caller knows it is current. */
    inventory?: Inventory
    /** Symbols parsed by earlier briefs (a throwaway cache otherwise). */
    exports?: ExportCache
    /**
     * Symbols by path known for this very tree (the caller's fingerprint is unchanged since they
     * were read), taken without a stamp; what this brief learns is added.
     */
    treeSymbols?: Map<string, string[]>
  } = {},
): Promise<RepoBrief> {
  const terms = queryTerms(query)
  const inventory = reuse.inventory ?? (await takeInventory(root, signal))
  const exportCache = reuse.exports ?? createExportCache()
  const reader = createSourceReader(root, MAX_SOURCE_BYTES)
  const { sources, tests } = layoutOf(inventory)

  const pathScore = (file: SourcePath) => {
    let score = 0
    for (const term of terms) {
      if (file.name.includes(term)) score += 3
      else if (file.dir.includes(term)) score += 1
    }
    return score
  }
  // `sources` are in path order (layoutOf) and sort is stable, so ordering the matched files by
  // score alone gives score, then path, without sorting the whole tree on every brief.
  const withScores = sources.map((file) => ({ path: file.path, score: pathScore(file) }))
  const matched = withScores.filter((f) => f.score > 0).sort((a, b) => b.score - a.score)
  const unmatched = withScores.filter((f) => f.score === 0)
  // Parse the files whose path matched, then changed ones, up to the bound.
  const toParse = [...matched, ...unmatched.filter((f) => inventory.changes.has(f.path))].slice(
    0,
    MAX_PARSED,
  )
  if (terms.length > 0 && toParse.length < MAX_PARSED) {
    toParse.push(...unmatched.slice(0, MAX_PARSED - toParse.length))
  }

  const known = reuse.treeSymbols ?? new Map<string, string[]>()
  const unknown = toParse.filter(({ path }) => !known.has(path))
  const read = await mapBounded(unknown, PARALLEL_READS, ({ path }) => {
    signal?.throwIfAborted()
    return symbolsOf(root, path, reader, exportCache)
  })
  for (const [at, { path }] of unknown.entries()) known.set(path, read[at]!)
  const symbols = toParse.map(({ path }) => known.get(path)!)
  const scored: BriefFile[] = []
  for (const [at, { path, score: base }] of toParse.entries()) {
    const exports = symbols[at]!
    let score = base
    for (const symbol of exports) {
      const lower = symbol.toLowerCase()
      for (const term of terms) if (lower.includes(term)) score += 2
    }
    if (score === 0) continue
    const change = inventory.changes.get(path)
    scored.push({
      path,
      score,
      exports,
      tests: adjacentTests(path, tests),
      ...(change && { change }),
    })
  }
  scored.sort((a, b) => b.score - a.score || byCodeUnits(a.path, b.path))
  const files = scored.slice(0, MAX_FILES)
  const top = files[0]
  const readyForImplementation =
    !!top &&
    top.score >= READY_SCORE &&
    top.tests.length > 0 &&
    top.exports.some((e) => terms.some((t) => e.toLowerCase().includes(t)))
  return {
    query,
    terms,
    head: inventory.head,
    git: inventory.git,
    files,
    changed: [...inventory.changes]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .slice(0, MAX_CHANGED)
      .map(([path, status]) => ({ path, status })),
    readyForImplementation,
  }
}

type SourcePath = { path: string; name: string; dir: string }

// An inventory's sources with their lowercased names and folders, and its tests, worked out once
// per inventory (it is reused for every question on an unchanged tree), not once per brief.
const layouts = new WeakMap<Inventory, { sources: SourcePath[]; tests: string[] }>()

function layoutOf(inventory: Inventory) {
  let layout = layouts.get(inventory)
  if (!layout) {
    layout = {
      sources: inventory.files
        .filter(isBriefSource)
        .sort(byCodeUnits)
        .map((path) => ({
          path,
          name: basename(path).toLowerCase(),
          dir: dirname(path).toLowerCase(),
        })),
      tests: inventory.files.filter((f) => TEST.test(f)),
    }
    layouts.set(inventory, layout)
  }
  return layout
}

/** Tests named after the file (`x.test.ts`, `x.spec.ts`, `__tests__/x.ts`, `test/x*.test.ts`). */
function adjacentTests(path: string, tests: string[]): string[] {
  const stem = basename(path)
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
  if (stem === 'index') return []
  return tests
    .filter((t) => {
      const name = basename(t).toLowerCase()
      return name.startsWith(`${stem}.`) || name.startsWith(`${stem}_`) || name === `${stem}.ts`
    })
    .slice(0, MAX_TESTS)
}
