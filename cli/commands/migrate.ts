import { migrateDatabase } from '../../compute-host/database/migrate.ts'
import { openDatabases } from '../../compute-host/database/open.ts'
import { parseHostEnv } from '../../compute-host/env.ts'
import { createLogger } from '../../compute-host/log.ts'

/** `popagent migrate`: apply schema and data migrations to the application database, then exit. */
export async function migrate(source: Record<string, string | undefined>) {
  const env = parseHostEnv(source)
  const log = createLogger({ secrets: [env.DATABASE_URL, env.OBSERVABILITY_DATABASE_URL] })
  const databases = await openDatabases(env, log)
  try {
    const report = await migrateDatabase(databases.application)
    const applied = report.dataMigrationsApplied
    console.log(
      `migrated the ${databases.mode} database in ${report.ms} ms` +
        (applied.length
          ? `; data migrations applied: ${applied.join(', ')}`
          : '; data migrations up to date'),
    )
  } finally {
    await databases.close()
  }
}
