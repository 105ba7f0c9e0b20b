import { sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { RUN_RETENTION_DAYS } from '../../../runtime/evolution/runs.ts'

/**
 * Settled signals and decided proposals are kept this long: a signal's evidence lives on in the
 * revision it justified, and an approved proposal's in the revision it applied.
 */
export const SIGNAL_RETENTION_DAYS = 30
// Rows deleted per pass and table, so one pass never holds a long delete.
const PRUNE_BATCH = 1_000

/**
 * Deletes processed and ignored signals settled more than `SIGNAL_RETENTION_DAYS` ago, and
 * approved and rejected proposals decided that long ago, at most a batch of each per pass.
 * Pending, claimed and dead signals stay until the worker or the owner settles them; a pending
 * proposal stays until the owner decides it. Recorded runs go after `RUN_RETENTION_DAYS`.
 */
export async function pruneSettled(db: Db): Promise<void> {
  await db.execute(sql`
    delete from popagent_evolution_signals
    where id in (
      select id from popagent_evolution_signals
      where status in ('processed', 'ignored')
        and updated_at < now() - make_interval(days => ${SIGNAL_RETENTION_DAYS})
      limit ${PRUNE_BATCH}
    )`)
  await db.execute(sql`
    delete from popagent_evolution_proposals
    where id in (
      select id from popagent_evolution_proposals
      where status in ('approved', 'rejected')
        and decided_at < now() - make_interval(days => ${SIGNAL_RETENTION_DAYS})
      limit ${PRUNE_BATCH}
    )`)
  await db.execute(sql`
    delete from popagent_evolution_runs
    where (trace_id, agent_id) in (
      select trace_id, agent_id from popagent_evolution_runs
      where created_at < now() - make_interval(days => ${RUN_RETENTION_DAYS})
      limit ${PRUNE_BATCH}
    )`)
}
