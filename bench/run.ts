/**
 * `npm run bench`: every figure is measured side by side with its baseline in the same run and
 * reported as the median of per-round ratios. `--quick` only proves the script works (CI);
 * the full mode is for people. Results also go to bench-results.json.
 */
import { writeFile } from 'node:fs/promises'
import { benchAdmission } from './admission.ts'

const quick = process.argv.includes('--quick')
const results = [
  await benchAdmission(quick ? { rounds: 3, tasks: 2_000 } : { rounds: 15, tasks: 100_000 }),
]

console.log(`popagent bench (${quick ? 'quick' : 'full'})`)
for (const r of results)
  console.log(`${r.name.padEnd(40)} ${r.ratio.toFixed(2)}×  (goal ${r.goal})  ${r.detail}`)
await writeFile(
  'bench-results.json',
  `${JSON.stringify({ quick, at: new Date().toISOString(), results }, null, 2)}\n`,
)
