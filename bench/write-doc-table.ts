/**
 * The current figures in docs/benchmarks.md, written by the runs themselves (issue 41): a full
 * `npm run bench` merges its results into docs/bench-figures.json (each figure keeps the date and
 * machine of the sitting that last measured it, so `--only` refreshes its own rows and leaves the
 * rest) and rewrites the table between the bench markers from it; a full fault suite does the
 * same with its figure records (docs/fault-figures.json, the fault markers). Quick and short runs
 * write nothing: their figures only prove the scripts run. The rest of the page (method, history)
 * is prose and stays as people wrote it.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BenchResult } from './result.ts'

const ROOT = join(import.meta.dirname, '..')
export const DOC = join(ROOT, 'docs', 'benchmarks.md')
export const BENCH_BOOK = join(ROOT, 'docs', 'bench-figures.json')
export const FAULT_BOOK = join(ROOT, 'docs', 'fault-figures.json')

export const BENCH_MARKERS = {
  start: '<!-- bench-figures:start (npm run bench writes this table; do not edit it) -->',
  end: '<!-- bench-figures:end -->',
}
export const FAULT_MARKERS = {
  start: '<!-- fault-figures:start (npm run test:faults writes this table; do not edit it) -->',
  end: '<!-- fault-figures:end -->',
}

const DETAIL_CHARS = 140
const FIGURES_CHARS = 400

/** What `npm run bench` writes to bench-results.json. */
export type BenchSitting = {
  quick: boolean
  at: string
  machine: { cpu: string; cores: number; memoryGiB: number; node: string }
  results: BenchResult[]
}

/** A figure as the table keeps it: the result and the sitting that measured it. */
export type KeptFigure = BenchResult & { at: string; machine: string }

/** A fault's figure record (test/faults/mode.ts `recordFigures`). */
export type FaultRecord = { name: string; mode: string; at: string } & Record<string, unknown>

/** How a bench result's figure reads: a ratio, or an absolute value in its unit. */
export function figureText(r: Pick<BenchResult, 'ratio' | 'unit'>): string {
  if (!r.unit) return `${r.ratio.toFixed(2)}×`
  return `${r.ratio >= 0 && r.unit === 'ms' ? '+' : ''}${r.ratio.toFixed(2)} ${r.unit}`
}

export function machineLabel(m: BenchSitting['machine']): string {
  return `${m.cores} × ${m.cpu.replace(/\s+/g, ' ').trim()}`
}

/**
 * The kept figures after a full sitting: each of its results replaces the figure of the same
 * name (in place, so the table's order is stable) or joins at the end.
 */
export function mergeFigures(kept: KeptFigure[], sitting: BenchSitting): KeptFigure[] {
  if (sitting.quick) throw new Error('a quick run does not update the figures')
  const next = [...kept]
  for (const result of sitting.results) {
    const figure = { ...result, at: sitting.at, machine: machineLabel(sitting.machine) }
    const at = next.findIndex((f) => f.name === result.name)
    if (at >= 0) next[at] = figure
    else next.push(figure)
  }
  return next
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** The bench table: figure, measured (with its detail), goal, met, and when and where. */
export function benchTable(figures: KeptFigure[]): string {
  const rows = figures.map((f) =>
    [
      cell(f.name),
      cell(`**${figureText(f)}**${f.detail ? ` (${cut(f.detail, DETAIL_CHARS)})` : ''}`),
      cell(f.goal),
      f.met ? 'met' : '**not met**',
      cell(`${f.at.slice(0, 10)}, ${f.machine}`),
    ].join(' | '),
  )
  return [
    '| Figure | Measured | Goal | Met | Taken |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n')
}

/** The fault table: each fault's figures as its record gives them, with the mode and date. */
export function faultTable(records: FaultRecord[]): string {
  const rows = [...records]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((r) => {
      const { name, mode, at, ...figures } = r
      const values = Object.entries(figures)
        .map(
          ([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
        .join(', ')
      return [cell(name), cell(cut(values, FIGURES_CHARS)), cell(`${at.slice(0, 10)}, ${mode}`)]
    })
  return [
    '| Fault | Figures | Taken |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}

/** `doc` with what lies between the markers replaced by `body`; both markers must be there. */
export function replaceSection(
  doc: string,
  markers: { start: string; end: string },
  body: string,
): string {
  const start = doc.indexOf(markers.start)
  const end = doc.indexOf(markers.end)
  if (start < 0 || end < start) {
    throw new Error(`docs/benchmarks.md lacks the markers ${markers.start} … ${markers.end}`)
  }
  return `${doc.slice(0, start + markers.start.length)}\n\n${body}\n\n${doc.slice(end)}`
}

/** Formats the page as `npm run lint` expects it (prettier aligns the tables). */
export async function formatted(text: string, parser: 'markdown' | 'json' = 'markdown') {
  const prettier = await import('prettier')
  const options = (await prettier.resolveConfig(DOC)) ?? {}
  return prettier.format(text, { ...options, parser })
}

/** A figures book as `npm run lint` expects it (prettier puts short number lists on one line). */
const book = (value: unknown) => formatted(JSON.stringify(value, null, 2), 'json')

async function readJson<T>(path: string, empty: T): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty
    throw error
  }
}

/** After a full `npm run bench`: keeps its figures and rewrites the page's bench table. */
export async function writeBenchFigures(sitting: BenchSitting): Promise<void> {
  const kept = mergeFigures(await readJson<KeptFigure[]>(BENCH_BOOK, []), sitting)
  await writeFile(BENCH_BOOK, await book(kept))
  const doc = await readFile(DOC, 'utf8')
  await writeFile(DOC, await formatted(replaceSection(doc, BENCH_MARKERS, benchTable(kept))))
}

/** After a full fault run: keeps each fault's newest full record and rewrites the fault table. */
export async function writeFaultFigures(records: FaultRecord[]): Promise<void> {
  const full = records.filter((r) => r.mode === 'full')
  if (full.length === 0) return
  const kept = new Map(
    (await readJson<FaultRecord[]>(FAULT_BOOK, [])).map((r) => [r.name, r] as const),
  )
  for (const record of full) kept.set(record.name, record)
  const all = [...kept.values()].sort((a, b) => a.name.localeCompare(b.name))
  await writeFile(FAULT_BOOK, await book(all))
  const doc = await readFile(DOC, 'utf8')
  await writeFile(DOC, await formatted(replaceSection(doc, FAULT_MARKERS, faultTable(all))))
}
