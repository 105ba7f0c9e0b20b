/**
 * `npm run bench`: every figure is measured side by side with its baseline in the same run and
 * reported as the median of per-round ratios. `--quick` only proves the script works (CI);
 * the full mode is for people. Results also go to bench-results.json.
 */
import { writeFile } from 'node:fs/promises'
import { benchAdmission } from './admission.ts'
import { benchStreamProxy } from './stream-proxy.ts'
import { benchTaskRunner } from './task-runner.ts'

const quick = process.argv.includes('--quick')
type Result = { name: string; goal: string; ratio: number; detail: string; unit?: string }
const results: Result[] = [
  await benchAdmission(quick ? { rounds: 3, tasks: 2_000 } : { rounds: 15, tasks: 100_000 }),
  ...(await benchStreamProxy(
    quick
      ? { rounds: 3, events: 500, ttfbSamples: 10 }
      : { rounds: 11, events: 5_000, ttfbSamples: 101 },
  )),
  ...(await benchTaskRunner(
    quick
      ? { rounds: 3, tasks: 1_000, latencySamples: 30 }
      : { rounds: 9, tasks: 10_000, latencySamples: 300 },
  )),
]

console.log(`popagent bench (${quick ? 'quick' : 'full'})`)
for (const r of results) {
  const figure =
    r.unit === 'ms'
      ? `${r.ratio >= 0 ? '+' : ''}${r.ratio.toFixed(2)} ms`
      : `${r.ratio.toFixed(2)}×`
  console.log(`${r.name.padEnd(44)} ${figure.padStart(9)}  (goal ${r.goal})  ${r.detail}`)
}
await writeFile(
  'bench-results.json',
  `${JSON.stringify({ quick, at: new Date().toISOString(), results }, null, 2)}\n`,
)
