import { eq } from '../drizzle-orm.ts'
import type { Db } from '../index.ts'
import { dataMigrations } from '../schema/index.ts'
import { seedAgentRuntimeSettings } from './0001-seed-agent-runtime-settings.ts'
import { registerDefaultWorkspace } from './0002-register-default-workspace.ts'
import { seedMemoryAutonomyBrowserSettings } from './0003-seed-memory-autonomy-browser-settings.ts'
import { seedAgentRolesAndSkills } from './0004-seed-agent-roles-and-skills.ts'
import { memoryToolsForEveryRole } from './0005-memory-tools-for-every-role.ts'
import { costCapsWithoutDefaults } from './0006-cost-caps-without-defaults.ts'
import type { DataMigration } from './types.ts'

/** Every data migration, in the order it must run. Append only. */
export const DATA_MIGRATIONS: readonly DataMigration[] = [
  seedAgentRuntimeSettings,
  registerDefaultWorkspace,
  seedMemoryAutonomyBrowserSettings,
  seedAgentRolesAndSkills,
  memoryToolsForEveryRole,
  costCapsWithoutDefaults,
]

/**
 * Applies the data migrations that have no marker yet, each in its own transaction together with
 * its marker, so a row deleted later is never recreated (a missing singleton stays a
 * configuration error). The caller holds the migration advisory lock; the marker check inside the
 * transaction keeps this safe even without it.
 */
export async function applyDataMigrations(
  db: Db,
  migrations: readonly DataMigration[] = DATA_MIGRATIONS,
): Promise<string[]> {
  const applied: string[] = []
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      const done = await tx
        .select({ name: dataMigrations.name })
        .from(dataMigrations)
        .where(eq(dataMigrations.name, migration.name))
        .for('update')
      if (done.length > 0) return false
      await migration.up(tx)
      await tx.insert(dataMigrations).values({ name: migration.name })
      return true
    })
    if (ran) applied.push(migration.name)
  }
  return applied
}
