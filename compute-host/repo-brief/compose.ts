import { byCodeUnits } from '../../runtime/code-unit-order.ts'
import { basename } from 'node:path'
import { createExportCache, type ExportCache } from './export-cache.ts'
import { takeInventory, type Inventory } from './inventory.ts'
import { mapBounded } from './map-bounded.ts'
import { indexPaths, scorePaths, type PathIndex } from './path-scores.ts'
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
  const { index, tests } = layoutOf(inventory)
  const toParse = parseOrder(index, scorePaths(index, terms), inventory.changes, terms.length > 0)

  const known = reuse.treeSymbols ?? new Map<string, string[]>()
  const unknown = toParse.filter(({ path }) => !known.has(path))
  const read = await mapBounded(unknown, PARALLEL_READS, ({ path }) => {
    signal?.throwIfAborted()
    return symbolsOf(root, path, reader, exportCache)
  })
  for (const [at, { path }] of unknown.entries()) known.set(path, read[at]!)
  const symbols = toParse.map(({ path }) => known.get(path)!)
  const scored: Array<{ path: string; score: number; exports: string[] }> = []
  for (const [at, { path, score: base }] of toParse.entries()) {
    const exports = symbols[at]!
    let score = base
    for (const lower of lowerCased(exports)) {
      for (const term of terms) if (lower.includes(term)) score += 2
    }
    if (score > 0) scored.push({ path, score, exports })
  }
  scored.sort((a, b) => b.score - a.score || byCodeUnits(a.path, b.path))
  // Tests and changes are looked up for the files shown only: the score does not depend on them,
  // and matching every scored file against every test was most of a brief's time on a large tree.
  const files: BriefFile[] = scored.slice(0, MAX_FILES).map(({ path, score, exports }) => {
    const change = inventory.changes.get(path)
    return { path, score, exports, tests: adjacentTests(path, tests), ...(change && { change }) }
  })
  const top = files[0]
  const readyForImplementation =
    !!top &&
    top.score >= READY_SCORE &&
    top.tests.length > 0 &&
    lowerCased(top.exports).some((e) => terms.some((t) => e.includes(t)))
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

type TestPath = { path: string; name: string }

// An inventory's sources indexed for scoring, and its tests with their lowercased names, worked
// out once per inventory (it is reused for every question on an unchanged tree), not per brief.
const layouts = new WeakMap<Inventory, { index: PathIndex; tests: TestPath[] }>()

// A file's symbols lowercased, kept as long as its symbol list is (the tree's, reused by every
// question on an unchanged tree), so a new question does not lowercase them again.
const lowered = new WeakMap<string[], string[]>()

function lowerCased(symbols: string[]): string[] {
  let lower = lowered.get(symbols)
  if (!lower) lowered.set(symbols, (lower = symbols.map((s) => s.toLowerCase())))
  return lower
}

function layoutOf(inventory: Inventory) {
  let layout = layouts.get(inventory)
  if (!layout) {
    layout = {
      index: indexPaths(inventory.files.filter(isBriefSource).sort(byCodeUnits)),
      tests: inventory.files
        .filter((f) => TEST.test(f))
        .map((path) => ({ path, name: basename(path).toLowerCase() })),
    }
    layouts.set(inventory, layout)
  }
  return layout
}

/**
 * The files a brief parses, at most MAX_PARSED, each once: those whose path matched, best first
 * and in path order among equals; then the changed ones in path order; then, when the query has
 * terms, the rest in path order (their symbols may still match).
 */
function parseOrder(
  index: PathIndex,
  scores: Int32Array,
  changes: ReadonlyMap<string, string>,
  withTerms: boolean,
): Array<{ path: string; score: number }> {
  const matched: number[] = []
  for (let at = 0; at < scores.length; at++) if (scores[at]! > 0) matched.push(at)
  matched.sort((a, b) => scores[b]! - scores[a]! || a - b)
  const order = matched.slice(0, MAX_PARSED)
  const changed: number[] = []
  for (const path of changes.keys()) {
    const at = index.positions.get(path)
    if (at !== undefined && scores[at] === 0) changed.push(at)
  }
  order.push(...changed.sort((a, b) => a - b).slice(0, MAX_PARSED - order.length))
  for (let at = 0; withTerms && order.length < MAX_PARSED && at < scores.length; at++) {
    if (scores[at] === 0 && !changes.has(index.paths[at]!)) order.push(at)
  }
  return order.map((at) => ({ path: index.paths[at]!, score: scores[at]! }))
}

/** Tests named after the file (`x.test.ts`, `x.spec.ts`, `__tests__/x.ts`, `test/x*.test.ts`). */
function adjacentTests(path: string, tests: TestPath[]): string[] {
  const stem = basename(path)
    .replace(/\.[^.]+$/, '')
    .toLowerCase()
  if (stem === 'index') return []
  // Made once here, not once per test name compared.
  const dotted = `${stem}.`
  const underscored = `${stem}_`
  const plain = `${stem}.ts`
  return tests
    .filter(({ name }) => name.startsWith(dotted) || name.startsWith(underscored) || name === plain)
    .slice(0, MAX_TESTS)
    .map((t) => t.path)
}
