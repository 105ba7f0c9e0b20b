import { and, desc, eq, gt, inArray, isNull, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { evolutionRevisions, evolutionSignals } from '../../db/schema/index.ts'
import { revert } from '../../runtime/evolution/revisions.ts'

/** New runs with the same failure after a change that make it a change that did not help. */
export const REGRESSION_TRACES = 3
// Changes looked at per pass: the newest, which are the ones still being measured.
const CANDIDATES = 50

export type Measured = { revisionId: string; failuresAfter: number; revertedBy?: string }

/**
 * Every learned change proves itself. A change (an overlay or skill, not yet reverted) was made
 * for failures of some classes; when at least `REGRESSION_TRACES` new runs of the same agent fail
 * with those classes after it, it did not help, and evolution appends the compensating revision
 * itself, saying why. The revert applies only where an owner's revert would (the change is still
 * the target's newest and the target holds what it wrote) and only while evolution is on.
 */
export async function revertRegressions(db: Db): Promise<Measured[]> {
  const candidates = await db
    .select()
    .from(evolutionRevisions)
    .where(
      and(
        inArray(evolutionRevisions.op, ['create', 'amend']),
        inArray(evolutionRevisions.targetKind, ['overlay', 'skill']),
        isNull(evolutionRevisions.revertsRevisionId),
        sql`not exists (select 1 from popagent_evolution_revisions r where r.reverts_revision_id = ${evolutionRevisions.id})`,
      ),
    )
    .orderBy(desc(evolutionRevisions.createdAt))
    .limit(CANDIDATES)
  const measured: Measured[] = []
  for (const revision of candidates) {
    const cited = await db
      .selectDistinct({ failureClass: evolutionSignals.failureClass })
      .from(evolutionSignals)
      .where(inArray(evolutionSignals.id, revision.signalIds))
    if (cited.length === 0) continue
    const after = await db
      .select({ traceIds: evolutionSignals.traceIds })
      .from(evolutionSignals)
      .where(
        and(
          eq(evolutionSignals.agentId, revision.agentId),
          inArray(
            evolutionSignals.failureClass,
            cited.map((c) => c.failureClass),
          ),
          gt(evolutionSignals.updatedAt, revision.createdAt),
        ),
      )
    const before = new Set(revision.traceIds)
    const failuresAfter = new Set(after.flatMap((s) => s.traceIds).filter((t) => !before.has(t)))
      .size
    const entry: Measured = { revisionId: revision.id, failuresAfter }
    if (failuresAfter >= REGRESSION_TRACES) {
      try {
        const compensating = await revert(db, revision.id, {
          reason: `the same failures continued after this change (${failuresAfter} new runs of ${cited.map((c) => c.failureClass).join(', ')}), so evolution took it back`,
        })
        entry.revertedBy = compensating.id
      } catch {
        // Stale (the owner or a later change moved the target), already reverted, or evolution
        // is off: nothing to take back here.
      }
    }
    measured.push(entry)
  }
  return measured
}
