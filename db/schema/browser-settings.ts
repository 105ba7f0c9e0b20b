import { sql } from '../drizzle-orm.ts'
import { boolean, check, pgTable, timestamp } from '../drizzle-pg-core.ts'

/** The global browser-automation toggle; read on every run, so a change applies at once. */
export const browserSettings = pgTable(
  'popagent_browser_settings',
  {
    singleton: boolean().primaryKey().default(true),
    enabled: boolean().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [check('popagent_browser_settings_singleton', sql`${t.singleton}`)],
)
