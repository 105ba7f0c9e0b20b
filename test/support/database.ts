/**
 * Real PostgreSQL databases for tests: each call creates a fresh database on the server named by
 * TEST_DATABASE_URL (set by test/run.ts), optionally migrated, and drops it on dispose. The
 * benchmarks create theirs the same way on a server they name.
 */
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import type { Db } from '../../db/index.ts'
import { migrateDatabase } from '../../compute-host/database/migrate.ts'
import { openNodePostgres } from '../../compute-host/database/postgres.ts'
import { embeddedHandle, openEmbeddedMemory } from '../../compute-host/database/embedded.ts'
import type { DatabaseHandle } from '../../compute-host/database/handle.ts'

export function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`')
  return url
}

export function databaseUrl(name: string, server = serverUrl()): string {
  const url = new URL(server)
  url.pathname = `/${name}`
  return url.toString()
}

export type TestDatabase = {
  name: string
  url: string
  handle: DatabaseHandle
  db: Db
  drop(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

async function admin<T>(server: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(server, { max: 1, onnotice: () => {} })
  try {
    return await fn(sql)
  } finally {
    await sql.end({ timeout: 5 })
  }
}

export async function createDatabaseOnServer(server = serverUrl()): Promise<{
  name: string
  url: string
  drop: () => Promise<void>
}> {
  const name = `popagent_test_${randomBytes(6).toString('hex')}`
  await admin(server, (sql) => sql.unsafe(`create database "${name}"`))
  return {
    name,
    url: databaseUrl(name, server),
    drop: () =>
      admin(server, (sql) => sql.unsafe(`drop database if exists "${name}" with (force)`)).then(
        () => {},
      ),
  }
}

export async function createTestDatabase(
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const created = await createDatabaseOnServer()
  const handle = openNodePostgres(created.url, { max: 10, applicationName: 'popagent-test' })
  if (options.migrate ?? true) await migrateDatabase(handle)
  let dropped = false
  const drop = async () => {
    if (dropped) return
    dropped = true
    await handle.close()
    await created.drop()
  }
  return { ...created, handle, db: handle.db, drop, [Symbol.asyncDispose]: drop }
}

/** A migrated in-memory PGlite: the embedded path, exactly as `npm start` uses it. */
export async function createEmbeddedDatabase(options: { migrate?: boolean } = {}) {
  const handle = embeddedHandle(await openEmbeddedMemory())
  if (options.migrate ?? true) await migrateDatabase(handle)
  return { handle, db: handle.db, close: () => handle.close() }
}
