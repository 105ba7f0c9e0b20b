/**
 * `npm run bench`: every figure is measured side by side with its baseline in the same run and
 * reported as the median of per-round ratios. `--quick` only proves the script works (CI);
 * the full mode is for people. `--only a,b` runs the named benches. Results, with the machine
 * they were taken on, also go to bench-results.json; a full run also refreshes its figures in
 * docs/benchmarks.md's current table (bench/write-doc-table.ts), unless `--no-doc`.
 */
import { writeFile } from 'node:fs/promises'
import { cpus, loadavg, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { benchAdmission } from './admission.ts'
import { benchBrowserCall } from './browser-call.ts'
import { benchApiStack } from './api-stack.ts'
import { benchChannelTurn } from './channel-turn.ts'
import { benchChatTurn } from './chat-turn.ts'
import { benchColdStart } from './cold-start.ts'
import { benchCronLateness } from './cron-lateness.ts'
import { benchDocsRetrieval } from './docs-retrieval.ts'
import { benchFootprint } from './footprint.ts'
import { benchRecall } from './recall.ts'
import { benchSessionGrowth } from './session-growth.ts'
import { benchHeapRetained } from './heap-retained.ts'
import { benchLiveTurnJoin } from './live-turn-join.ts'
import { benchMcpCall } from './mcp-call.ts'
import { BenchSkipped, type BenchMode, type BenchResult } from './result.ts'
import { benchStreamProxy } from './stream-proxy.ts'
import { benchTaskRunner } from './task-runner.ts'
import { benchTurnLatency } from './turn-latency.ts'
import { benchTracingOverhead } from './tracing-overhead.ts'
import { figureText, writeBenchFigures } from './write-doc-table.ts'

const benches: Record<string, (mode: BenchMode) => Promise<BenchResult[]>> = {
  'api-stack': benchApiStack,
  'stream-proxy': benchStreamProxy,
  'task-runner': benchTaskRunner,
  admission: benchAdmission,
  'cron-lateness': benchCronLateness,
  'chat-turn': benchChatTurn,
  'channel-turn': benchChannelTurn,
  'turn-latency': benchTurnLatency,
  'live-turn-join': benchLiveTurnJoin,
  'session-growth': benchSessionGrowth,
  'heap-retained': benchHeapRetained,
  'cold-start': benchColdStart,
  footprint: benchFootprint,
  'docs-retrieval': benchDocsRetrieval,
  recall: benchRecall,
  'tracing-overhead': benchTracingOverhead,
  'mcp-call': benchMcpCall,
  'browser-call': benchBrowserCall,
}

const usage = `usage: node bench/run.ts [--quick] [--only bench,bench] [--no-doc]
  --quick    only prove the benches run (CI); figures are not the page's
  --only     run the named benches: ${Object.keys(benches).join(', ')}
  --no-doc   leave docs/benchmarks.md's current figures as they are`
// Strict: an unknown flag (even --help) must not fall through to running every bench.
let flags: { quick?: boolean; only?: string; 'no-doc'?: boolean; help?: boolean }
try {
  flags = parseArgs({
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string' },
      'no-doc': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`)
  process.exit(2)
}
if (flags.help) {
  console.log(usage)
  process.exit(0)
}
const quick = flags.quick === true
const only = flags.only !== undefined ? flags.only.split(',') : Object.keys(benches)
const unknown = only.filter((name) => !(name in benches))
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`)
  process.exit(2)
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadBefore: loadavg().map((l) => Number(l.toFixed(2))),
}
const results: BenchResult[] = []
// A bench that cannot run here is named with why and what to install; one that breaks is named
// with its error, and the run exits non-zero. Either way the others still run.
const skipped: string[] = []
const failed: string[] = []
for (const name of only) {
  const began = performance.now()
  try {
    results.push(...(await benches[name]!({ quick })))
  } catch (error) {
    if (error instanceof BenchSkipped)
      skipped.push(`${name}: skipped: ${error.message}; ${error.install}`)
    else failed.push(`${name}: failed: ${(error as Error).stack ?? String(error)}`)
  }
  console.error(`bench ${name}: ${((performance.now() - began) / 1000).toFixed(1)} s`)
}

console.log(`popagent bench (${quick ? 'quick' : 'full'}) on ${machine.cores} × ${machine.cpu}`)
for (const r of results) {
  const mark = r.met ? 'met' : 'NOT MET'
  console.log(
    `${r.name.padEnd(48)} ${figureText(r).padStart(11)}  goal ${r.goal} (${mark})  ${r.detail}`,
  )
}
for (const line of [...skipped, ...failed]) console.log(line)
if (failed.length) process.exitCode = 1
const loadAfter = loadavg().map((l) => Number(l.toFixed(2)))
const sitting = {
  quick,
  at: new Date().toISOString(),
  machine: { ...machine, loadAfter },
  results,
  skipped,
  failed,
}
await writeFile('bench-results.json', `${JSON.stringify(sitting, null, 2)}\n`)
// Quick figures only prove the benches run; a full run's are the page's current figures.
if (!quick && !flags['no-doc'] && results.length > 0) {
  await writeBenchFigures(sitting)
  console.log('docs/benchmarks.md: the current figures table is refreshed')
}
