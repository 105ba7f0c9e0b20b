/**
 * The current-figures tables of docs/benchmarks.md (issue 41): a full bench sitting replaces the
 * figures it measured and keeps the others with their own date and machine; a quick one changes
 * nothing; the tables render from fixed records as expected; and the page's tables are what its
 * books (docs/bench-figures.json, docs/fault-figures.json) give, so nobody edits them by hand.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import {
  BENCH_BOOK,
  BENCH_MARKERS,
  benchTable,
  DOC,
  FAULT_BOOK,
  FAULT_MARKERS,
  faultTable,
  formatted,
  mergeFigures,
  replaceSection,
  type BenchSitting,
  type FaultRecord,
  type KeptFigure,
} from '../bench/write-doc-table.ts'

const machine = { cpu: 'AMD EPYC 7B13', cores: 2, memoryGiB: 23, node: 'v22.23.0' }
const sitting: BenchSitting = {
  quick: false,
  at: '2026-12-05T10:00:00.000Z',
  machine,
  results: [
    { name: 'api', goal: '≥ 0.90×', ratio: 0.94, met: true, detail: '11,231 vs 13,731/s' },
    { name: 'cold', goal: '≤ 3 s', ratio: 3.25, unit: 's', met: false, detail: 'median of 5' },
    { name: 'lag | ms', goal: '≤ +10 ms', ratio: 0.08, unit: 'ms', met: true, detail: '' },
  ],
}
const older: KeptFigure = {
  name: 'cold',
  goal: '≤ 3 s',
  ratio: 4,
  unit: 's',
  met: false,
  detail: 'old',
  at: '2026-12-01T00:00:00.000Z',
  machine: '2 × Intel Xeon',
}
const untouched: KeptFigure = { ...older, name: 'heap', ratio: 1.6, unit: 'KB', detail: 'kept' }

test('a full sitting replaces the figures it measured, in place, and keeps the others', () => {
  const kept = mergeFigures([older, untouched], sitting)
  assert.deepEqual(
    kept.map((f) => [f.name, f.ratio, f.at.slice(0, 10), f.machine]),
    [
      ['cold', 3.25, '2026-12-05', '2 × AMD EPYC 7B13'],
      ['heap', 1.6, '2026-12-01', '2 × Intel Xeon'],
      ['api', 0.94, '2026-12-05', '2 × AMD EPYC 7B13'],
      ['lag | ms', 0.08, '2026-12-05', '2 × AMD EPYC 7B13'],
    ],
  )
  assert.throws(() => mergeFigures([older], { ...sitting, quick: true }), /quick run/)
})

test('the bench table: figure, measured with its detail, goal, met, when and where', () => {
  assert.equal(
    benchTable(mergeFigures([], sitting)),
    [
      '| Figure | Measured | Goal | Met | Taken |',
      '| --- | --- | --- | --- | --- |',
      '| api | **0.94×** (11,231 vs 13,731/s) | ≥ 0.90× | met | 2026-12-05, 2 × AMD EPYC 7B13 |',
      '| cold | **3.25 s** (median of 5) | ≤ 3 s | **not met** | 2026-12-05, 2 × AMD EPYC 7B13 |',
      '| lag \\| ms | **+0.08 ms** | ≤ +10 ms | met | 2026-12-05, 2 × AMD EPYC 7B13 |',
    ].join('\n'),
  )
})

test('the fault table: each fault’s figures, its date and mode', () => {
  const records: FaultRecord[] = [
    { name: 'sandbox-network', mode: 'full', at: '2026-12-03T09:00:00Z', connections: 0 },
    { name: 'bad-inputs', mode: 'full', at: '2026-12-03T09:00:00Z', over500: 0, requests: 4370 },
  ]
  assert.equal(
    faultTable(records),
    [
      '| Fault | Figures | Taken |',
      '| --- | --- | --- |',
      '| bad-inputs | over500=0, requests=4370 | 2026-12-03, full |',
      '| sandbox-network | connections=0 | 2026-12-03, full |',
    ].join('\n'),
  )
})

test('a section is replaced between its markers, and a page without them is refused', () => {
  const doc = `# x\n\n${BENCH_MARKERS.start}\n\nold\n\n${BENCH_MARKERS.end}\n\nafter\n`
  assert.equal(
    replaceSection(doc, BENCH_MARKERS, 'new'),
    `# x\n\n${BENCH_MARKERS.start}\n\nnew\n\n${BENCH_MARKERS.end}\n\nafter\n`,
  )
  assert.throws(() => replaceSection('# x\n', FAULT_MARKERS, 'new'), /lacks the markers/)
})

test('docs/benchmarks.md shows exactly what its figure books hold', async () => {
  const doc = await readFile(DOC, 'utf8')
  const bench = JSON.parse(await readFile(BENCH_BOOK, 'utf8')) as KeptFigure[]
  const faults = JSON.parse(await readFile(FAULT_BOOK, 'utf8')) as FaultRecord[]
  const expected = replaceSection(
    replaceSection(doc, BENCH_MARKERS, benchTable(bench)),
    FAULT_MARKERS,
    faultTable(faults),
  )
  assert.equal(doc, await formatted(expected), 'regenerate the tables, do not edit them by hand')
})

test('the figure books are written as lint reads them (a full fault run left one prettier refused)', async () => {
  for (const path of [BENCH_BOOK, FAULT_BOOK]) {
    const text = await readFile(path, 'utf8')
    assert.equal(text, await formatted(JSON.stringify(JSON.parse(text), null, 2), 'json'), path)
  }
})
