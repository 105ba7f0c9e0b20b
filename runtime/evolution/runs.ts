import { sql } from '../../db/drizzle-orm.ts'
import type { FailureClass } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { evolutionRuns } from '../../db/schema/index.ts'

/**
 * The runs evolution measures its changes by (issue 39): one row per run and agent that took
 * part. A run is recorded as it ends; a signal about it adds its failure class, whether it comes
 * before the run's row (a guard stop during the run) or long after it (a thumbs-down the next
 * day). The row keeps the run's own time either way, so a late signal counts where the run was.
 */

/** A run ended: each agent that took part gets its row (a replayed end records nothing new). */
export async function recordRun(db: Db, traceId: string, agentIds: readonly string[]) {
  if (!traceId.trim() || agentIds.length === 0) return
  await db
    .insert(evolutionRuns)
    .values([...new Set(agentIds)].map((agentId) => ({ traceId, agentId })))
    .onConflictDoNothing()
}

/** A signal about a run: its class joins the run's failure classes (the row is made if needed). */
export async function recordRunFailure(
  db: Db,
  traceId: string,
  agentId: string,
  failureClass: FailureClass,
) {
  await db
    .insert(evolutionRuns)
    .values({ traceId, agentId, failureClasses: [failureClass] })
    .onConflictDoUpdate({
      target: [evolutionRuns.traceId, evolutionRuns.agentId],
      set: {
        failureClasses: sql`case when ${failureClass} = any(${evolutionRuns.failureClasses}) then ${evolutionRuns.failureClasses} else ${evolutionRuns.failureClasses} || array[${failureClass}::text] end`,
      },
    })
}

/** Runs older than this are deleted: a change is measured within days of being made. */
export const RUN_RETENTION_DAYS = 90
