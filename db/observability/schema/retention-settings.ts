import { sql } from '../../drizzle-orm.ts'
import { boolean, check, integer, pgTable, timestamp } from '../../drizzle-pg-core.ts'

/** The shortest retention the owner may set: today and yesterday are always kept. */
export const MIN_RETENTION_DAYS = 2
export const MAX_RETENTION_DAYS = 3_650

const days = (name: string, fallback: number) => integer(name).notNull().default(fallback)

/**
 * How long the observability database keeps each kind of record, in days (one row). The daily
 * retention job drops the day partitions older than this; the defaults follow how long each is
 * useful: traces a month, logs two weeks, usage a quarter (cost questions), feedback a year (the
 * evolution work learns from it).
 */
export const retentionSettings = pgTable(
  'popagent_obs_retention_settings',
  {
    id: boolean().primaryKey().default(true),
    spanDays: days('span_days', 30),
    logDays: days('log_days', 14),
    metricDays: days('metric_days', 90),
    feedbackDays: days('feedback_days', 365),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('popagent_obs_retention_settings_one_row', sql`${t.id}`),
    check(
      'popagent_obs_retention_settings_days',
      sql.raw(
        ['span_days', 'log_days', 'metric_days', 'feedback_days']
          .map((c) => `"${c}" between ${MIN_RETENTION_DAYS} and ${MAX_RETENTION_DAYS}`)
          .join(' and '),
      ),
    ),
  ],
)
