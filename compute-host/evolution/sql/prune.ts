import { sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'

/** Settled signals are kept this long: their evidence lives on in the revisions they justified. */
export const SIGNAL_RETENTION_DAYS = 30
// Rows deleted per pass, so one pass never holds a long delete.
const PRUNE_BATCH = 1_000

/**
 * Deletes processed and ignored signals settled more than `SIGNAL_RETENTION_DAYS` ago, at most
 * a batch per pass. Pending, claimed and dead signals stay until the worker or the owner settles
 * them.
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
}
