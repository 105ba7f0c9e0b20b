import { sql } from '../drizzle-orm.ts'
import { boolean, check, pgTable, text, timestamp } from '../drizzle-pg-core.ts'

/**
 * The global browser-automation toggle and the owner's opt-ins (runtime/browser/policy.ts); read
 * on every run, so a change applies at once. The opt-ins are off until the owner turns them on.
 */
export const browserSettings = pgTable(
  'popagent_browser_settings',
  {
    singleton: boolean().primaryKey().default(true),
    enabled: boolean().notNull(),
    allowScriptEvaluation: boolean().notNull().default(false),
    allowCredentialReaders: boolean().notNull().default(false),
    /** Absolute folder uploads may come from; '' allows none. */
    uploadFolder: text().notNull().default(''),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [check('popagent_browser_settings_singleton', sql`${t.singleton}`)],
)
