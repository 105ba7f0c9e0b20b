import { fileURLToPath } from 'node:url'
import { applyDataMigrations } from '../../db/data-migrations/index.ts'
import type { DatabaseHandle } from './handle.ts'

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url))

export const OBSERVABILITY_MIGRATIONS_FOLDER = fileURLToPath(
  new URL('../../db/observability/migrations', import.meta.url),
)

// The observability database keeps its migration history in a table of its own, so the two
// histories cannot mix even where both URLs reach one database by different spellings (drizzle
// applies only migrations newer than the newest it has recorded).
export const OBSERVABILITY_MIGRATIONS_TABLE = '__drizzle_migrations_observability'

// pg_advisory_lock key for schema and data migrations: "popagent" spelled in a 32-bit number.
export const MIGRATION_LOCK_KEY = 0x706f7061

// The observability database's own key ("pobs"), for the same reason as its own history table.
export const OBSERVABILITY_MIGRATION_LOCK_KEY = 0x706f6273

export type MigrationReport = { dataMigrationsApplied: string[]; ms: number }

/**
 * Applies the committed drizzle-kit migrations, then the versioned data migrations, all under one
 * PostgreSQL advisory lock so concurrent starts (several hosts, or host and CLI) queue up instead
 * of racing. Both steps are idempotent.
 */
export async function migrateDatabase(
  handle: DatabaseHandle,
  migrationsFolder = MIGRATIONS_FOLDER,
): Promise<MigrationReport> {
  const started = performance.now()
  const dataMigrationsApplied = await handle.withSessionLock(MIGRATION_LOCK_KEY, async (db) => {
    await handle.migrateSchema(db, migrationsFolder)
    return applyDataMigrations(db)
  })
  return { dataMigrationsApplied, ms: Math.round(performance.now() - started) }
}

/**
 * Applies db/observability/migrations to the observability database, under the same kind of
 * advisory lock as the application's. It has no data migrations: nothing there is seeded.
 */
export async function migrateObservabilityDatabase(
  handle: DatabaseHandle,
): Promise<{ ms: number }> {
  const started = performance.now()
  await handle.withSessionLock(OBSERVABILITY_MIGRATION_LOCK_KEY, (db) =>
    handle.migrateSchema(db, OBSERVABILITY_MIGRATIONS_FOLDER, OBSERVABILITY_MIGRATIONS_TABLE),
  )
  return { ms: Math.round(performance.now() - started) }
}
