/**
 * A fresh, migrated database for one bench run, dropped (with its throwaway server) after: on
 * BENCH_DATABASE_URL's (or TEST_DATABASE_URL's) server, else on a throwaway embedded PostgreSQL.
 */
import { sql } from '../db/drizzle-orm.ts'
import { rowsOf } from '../db/rows.ts'
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createDatabaseOnServer } from '../test/support/database.ts'
import { startThrowawayPostgres } from '../test/support/throwaway-postgres.ts'
import { BenchSkipped } from './result.ts'

/** Why the server cannot hold vectors, or undefined when it can. */
async function pgvectorMissing(handle: ReturnType<typeof openNodePostgres>) {
  const found = rowsOf(
    await handle.db.execute(sql`select 1 from pg_available_extensions where name = 'vector'`),
  )
  return found.length ? undefined : 'the bench database server has no pgvector'
}

export async function benchDatabase(
  options: { needs?: 'pgvector' } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const given = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  const server = given ? undefined : await startThrowawayPostgres()
  const created = await createDatabaseOnServer(given ?? server!.url)
  const handle = openNodePostgres(created.url, { max: 1 })
  let missing: string | undefined
  try {
    if (options.needs === 'pgvector') missing = await pgvectorMissing(handle)
    if (!missing) await migrateDatabase(handle)
  } finally {
    await handle.close()
  }
  if (missing) {
    await created.drop()
    await server?.stop()
    throw new BenchSkipped(
      missing,
      'install pgvector on a PostgreSQL server (apt install postgresql-<version>-pgvector) and ' +
        'point BENCH_DATABASE_URL at it; the throwaway server npm run bench starts has none',
    )
  }
  return {
    url: created.url,
    async drop() {
      await created.drop()
      await server?.stop()
    },
  }
}
