import { sql } from '../drizzle-orm.ts'
import { bigint, boolean, check, pgTable } from '../drizzle-pg-core.ts'

/**
 * One counter that every write to the configuration a run reads (agents, skills, hooks,
 * workspaces, settings) moves forward, by statement-level triggers in the same transaction
 * (migration 0017). The host keeps that configuration in memory and reads only this row per run:
 * a changed counter means the next run loads the rows again, whoever wrote them (the edge's API,
 * another process, psql).
 */
export const configVersion = pgTable(
  'popagent_config_version',
  {
    singleton: boolean().primaryKey().default(true),
    version: bigint({ mode: 'number' }).notNull().default(0),
  },
  (t) => [check('popagent_config_version_singleton', sql`${t.singleton}`)],
)
