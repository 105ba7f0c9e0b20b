import {
  migrateDatabase,
  migrateObservabilityDatabase,
} from '../../compute-host/database/migrate.ts'
import { openDatabases } from '../../compute-host/database/open.ts'
import { parseHostEnv } from '../../compute-host/env.ts'
import { createLogger } from '../../compute-host/log.ts'

/**
 * `popagent migrate`: apply schema and data migrations to the application database, then schema
 * migrations to the observability database, then exit.
 */
export async function migrate(source: Record<string, string | undefined>) {
  const env = parseHostEnv(source)
  const log = createLogger({ secrets: [env.DATABASE_URL, env.OBSERVABILITY_DATABASE_URL] })
  const databases = await openDatabases(env, log)
  try {
    const report = await migrateDatabase(databases.application)
    const applied = report.dataMigrationsApplied
    console.log(
      `migrated the ${databases.mode} application database in ${report.ms} ms` +
        (applied.length
          ? `; data migrations applied: ${applied.join(', ')}`
          : '; data migrations up to date'),
    )
    const observability = await migrateObservabilityDatabase(databases.observability)
    console.log(
      `migrated the ${databases.observability.kind} observability database in ${observability.ms} ms`,
    )
  } finally {
    await databases.close()
  }
}
