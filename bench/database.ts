/**
 * A fresh, migrated database for one bench run, dropped (with its throwaway server) after: on
 * BENCH_DATABASE_URL's (or TEST_DATABASE_URL's) server, else on a throwaway embedded PostgreSQL.
 */
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createDatabaseOnServer } from '../test/support/database.ts'
import { startThrowawayPostgres } from '../test/support/throwaway-postgres.ts'

export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const given = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
  const server = given ? undefined : await startThrowawayPostgres()
  const created = await createDatabaseOnServer(given ?? server!.url)
  const handle = openNodePostgres(created.url, { max: 1 })
  try {
    await migrateDatabase(handle)
  } finally {
    await handle.close()
  }
  return {
    url: created.url,
    async drop() {
      await created.drop()
      await server?.stop()
    },
  }
}
