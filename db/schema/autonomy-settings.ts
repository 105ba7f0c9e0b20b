import { sql } from '../drizzle-orm.ts'
import { boolean, check, pgTable, timestamp } from '../drizzle-pg-core.ts'

/** Switches for everything popagent may do on its own. Seeded once, all off. */
export const autonomySettings = pgTable(
  'popagent_autonomy_settings',
  {
    singleton: boolean().primaryKey().default(true),
    evolutionEnabled: boolean().notNull(),
    skillCreationEnabled: boolean().notNull(),
    automaticFactRetention: boolean().notNull(),
    selfUpdateEnabled: boolean().notNull(),
    deploymentEnabled: boolean().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [check('popagent_autonomy_settings_singleton', sql`${t.singleton}`)],
)
