import { pgTable, text, timestamp } from '../drizzle-pg-core.ts'

/** Markers of the versioned data migrations (seeds, backfills) that have been applied. */
export const dataMigrations = pgTable('popagent_data_migrations', {
  name: text().primaryKey(),
  appliedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})
