import { sql } from '../../drizzle-orm.ts'
import { check, index, integer, pgTable, text, timestamp, uuid } from '../../drizzle-pg-core.ts'

const time = () => timestamp({ withTimezone: true, mode: 'date' })

/** Why a retention run started: the daily job, or the catch-up run at host start. */
export const RETENTION_TRIGGERS = ['daily', 'boot'] as const
export type RetentionTrigger = (typeof RETENTION_TRIGGERS)[number]

export const RETENTION_OUTCOMES = ['running', 'succeeded', 'failed'] as const
export type RetentionOutcome = (typeof RETENTION_OUTCOMES)[number]

/**
 * One row per run of the observability retention job (extend the partition window, then prune
 * expired day partitions). Health reads the last and next run from here; a row left `running`
 * by a host that died is how an interrupted run shows up.
 */
export const retentionRuns = pgTable(
  'popagent_obs_retention_runs',
  {
    id: uuid().primaryKey().defaultRandom(),
    trigger: text().$type<RetentionTrigger>().notNull(),
    outcome: text().$type<RetentionOutcome>().notNull().default('running'),
    startedAt: time().notNull().defaultNow(),
    finishedAt: time(),
    /** Whole day partitions dropped; pruning never deletes rows one by one. */
    partitionsDropped: integer(),
    /** The redacted error of a failed run. */
    error: text(),
  },
  (t) => [
    index('popagent_obs_retention_runs_started_idx').on(t.startedAt),
    check(
      'popagent_obs_retention_runs_trigger',
      sql`${t.trigger} in ${sql.raw(`(${RETENTION_TRIGGERS.map((v) => `'${v}'`).join(', ')})`)}`,
    ),
    check(
      'popagent_obs_retention_runs_outcome',
      sql`${t.outcome} in ${sql.raw(`(${RETENTION_OUTCOMES.map((v) => `'${v}'`).join(', ')})`)}`,
    ),
    check(
      'popagent_obs_retention_runs_finished',
      sql`(${t.outcome} = 'running') = (${t.finishedAt} is null)`,
    ),
  ],
)
