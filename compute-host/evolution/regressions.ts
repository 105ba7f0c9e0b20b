import { and, desc, inArray, isNull, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { evolutionRevisions } from '../../db/schema/index.ts'
import { measureRevision, rose, type Windows } from '../../runtime/evolution/outcomes.ts'
import { revert } from '../../runtime/evolution/revisions.ts'

export {
  MIN_FAILURES_AFTER,
  MIN_RUNS_BEFORE,
  RUN_WINDOW,
} from '../../runtime/evolution/outcomes.ts'

// Changes looked at per pass: the newest, which are the ones still being measured.
const CANDIDATES = 50

export type Measured = { revisionId: string; revertedBy?: string } & Windows

const percent = (failures: number, runs: number) => `${Math.round((100 * failures) / runs)} %`

/**
 * Every learned change proves itself. An overlay or skill change (not yet reverted) was made for
 * failures of some classes. Once the agent has run `RUN_WINDOW` times since, its failure rate
 * for those classes over those runs is compared with the rate over the `RUN_WINDOW` runs before
 * the change; when it rose, the change did not help, and evolution appends the compensating
 * revision itself, saying why. Minimum counts keep noise out: at least `MIN_RUNS_BEFORE` runs
 * before (else no rate to compare with) and `MIN_FAILURES_AFTER` failed runs after (one or two
 * unlucky runs revert nothing); the rule is `rose` in runtime/evolution/outcomes.ts. The revert
 * applies only where an owner's revert would (the change is still the target's newest and the
 * target holds what it wrote) and only while evolution is on. A change whose window is full and
 * did not get worse stays: the windows are fixed runs, so later passes come to the same verdict
 * (unless a late signal, a thumbs-down, marks one of them).
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
    const m = await measureRevision(db, revision)
    if (!m) continue
    const entry: Measured = { revisionId: revision.id, ...m }
    measured.push(entry)
    if (!rose(m)) continue
    try {
      const compensating = await revert(db, revision.id, {
        reason: `the failure rate rose after this change (${m.classes.join(', ')}: ${m.failuresAfter} of the ${m.runsAfter} runs after it, ${percent(m.failuresAfter, m.runsAfter)}, against ${m.failuresBefore} of the ${m.runsBefore} runs before, ${percent(m.failuresBefore, m.runsBefore)}), so evolution took it back`,
      })
      entry.revertedBy = compensating.id
    } catch {
      // Stale (the owner or a later change moved the target), already reverted, or evolution
      // is off: nothing to take back here.
    }
  }
  return measured
}
