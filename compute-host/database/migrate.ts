import { fileURLToPath } from 'node:url'
import { applyDataMigrations } from '../../db/data-migrations/index.ts'
import type { DatabaseHandle } from './handle.ts'

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url))

// pg_advisory_lock key for schema and data migrations: "popagent" spelled in a 32-bit number.
export const MIGRATION_LOCK_KEY = 0x706f7061

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
