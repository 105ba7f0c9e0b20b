/**
 * The fault suite's closing summary: one line per figure record written during this run
 * (test-artifacts/faults/<name>.json, see mode.ts), so the headline numbers of every fault — payload
 * markers, capabilities, refused rebinding requests, file modes, bounded FIFO reads — end the
 * output together instead of being scattered through it. Records of a full run also become the
 * current fault table of docs/benchmarks.md (bench/write-doc-table.ts); short runs change nothing.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFaultFigures, type FaultRecord } from '../../bench/write-doc-table.ts'

const DIR = join(import.meta.dirname, '..', '..', 'test-artifacts', 'faults')
const MAX_VALUE = 120

export async function printFaultSummary(since: Date): Promise<void> {
  const names = await readdir(DIR).catch(() => [] as string[])
  const lines: string[] = []
  const records: FaultRecord[] = []
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const record = JSON.parse(await readFile(join(DIR, name), 'utf8')) as Record<string, unknown>
    if (typeof record.at !== 'string' || new Date(record.at) < since) continue
    records.push(record as FaultRecord)
    const { name: figure, mode, at: _at, ...figures } = record
    const values = Object.entries(figures).map(([key, value]) => `${key}=${brief(value)}`)
    lines.push(`  ${String(figure)} (${String(mode)}): ${values.join(', ')}`)
  }
  if (lines.length === 0) return
  console.log(`\nfault figures of this run (test-artifacts/faults/):\n${lines.join('\n')}`)
  await writeFaultFigures(records)
}

function brief(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text
}
