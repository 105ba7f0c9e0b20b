/**
 * The fault suite's two sizes: `short` (CI: proves every fault is exercised, in bounded time) and
 * `full` (for people, the figures for the closing note). `POPAGENT_FAULTS=short` selects the short
 * one; anything else runs the full one. Every fault test records its figures with `recordFigures`,
 * which prints them and writes them to test-artifacts/faults/<name>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const faultMode: 'short' | 'full' =
  process.env.POPAGENT_FAULTS === 'short' ? 'short' : 'full'

/** Picks the short or the full value of a size. */
export const sized = <T>(short: T, full: T): T => (faultMode === 'short' ? short : full)

const DIR = join(import.meta.dirname, '..', '..', 'test-artifacts', 'faults')

export async function recordFigures(name: string, figures: Record<string, unknown>) {
  await mkdir(DIR, { recursive: true })
  const record = { name, mode: faultMode, at: new Date().toISOString(), ...figures }
  await writeFile(join(DIR, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`)
  console.log(`fault figures ${name}: ${JSON.stringify(figures)}`)
}
