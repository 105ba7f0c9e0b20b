import { and, desc, eq, inArray, sql } from '../../db/drizzle-orm.ts'
import type { RevisionOp } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { evolutionRevisions } from '../../db/schema/index.ts'
import type { EvolutionRevision } from '../contracts/evolution.ts'
import { createId } from '../ids.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { AlreadyReverted, RevertStale, RevisionNotFound } from './errors.ts'
import { measureRevision, type Measure } from './outcomes.ts'
import { lockPolicy, type Tx } from './policy.ts'
import { readTarget, snapshotHash, writeTarget, type Snapshot, type Target } from './targets.ts'

type RevisionRow = typeof evolutionRevisions.$inferSelect

/** Serialises every change of one target (apply and revert alike) until the transaction ends. */
export async function lockTarget(tx: Tx, target: Target): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`evolution:${target.kind}:${target.key}`}, 0))`,
  )
}

/** The newest revision of a target, the one a revert must name to apply. */
async function latestOf(tx: Tx, target: Target): Promise<RevisionRow | undefined> {
  const [row] = await tx
    .select()
    .from(evolutionRevisions)
    .where(
      and(
        eq(evolutionRevisions.targetKind, target.kind),
        eq(evolutionRevisions.targetKey, target.key),
      ),
    )
    .orderBy(desc(evolutionRevisions.createdAt), desc(evolutionRevisions.id))
    .limit(1)
  return row
}

export type ChangeInput = {
  target: Target
  strategy: string
  after: Snapshot
  signalIds: string[]
  traceIds: string[]
  evidence: string
  rationale: string
  /** One applied decision per claimed batch: a replay finds it and changes nothing. */
  decisionKey: string
  sessionId?: string | null
}

/** create: there was nothing; retire: it is gone or switched off; amend: anything else. */
function opOf(before: Snapshot, after: Snapshot): Exclude<RevisionOp, 'revert'> {
  if (!before) return 'create'
  if (!after || after.state === 'retired' || after.enabled === false) return 'retire'
  return 'amend'
}

/**
 * Applies one change inside the caller's transaction (which has locked the policy): the target is
 * locked, read, written, and the revision appended with both full snapshots. Returns the
 * revision id.
 */
export async function applyChange(tx: Tx, input: ChangeInput): Promise<string> {
  await lockTarget(tx, input.target)
  const before = await readTarget(tx, input.target)
  const id = createId('evolutionRevision')
  const written = await writeTarget(tx, input.target, input.after, id, {
    sessionId: input.sessionId ?? null,
  })
  await tx.insert(evolutionRevisions).values({
    id,
    agentId: input.target.agentId,
    targetKind: input.target.kind,
    targetKey: input.target.key,
    op: opOf(before, written),
    strategy: input.strategy,
    before,
    after: written,
    afterSha256: await snapshotHash(written),
    decisionKey: input.decisionKey,
    signalIds: input.signalIds,
    traceIds: input.traceIds,
    evidence: input.evidence,
    rationale: input.rationale,
    createdAt: sql`clock_timestamp()` as unknown as Date,
  })
  return id
}

/**
 * Reverts revision `id` by appending a compensating revision that writes back its "before". It
 * applies only while that revision is still the target's newest and the target still holds
 * exactly what it wrote (an owner's edit of a skill, a later change: `REVERT_STALE`), and only
 * once per revision (`REVERT_ALREADY_DONE`). Reverting a revert re-applies the original.
 */
export async function revert(
  db: Db,
  id: string,
  /** An automatic revert (evolution's own): why, and it happens only while the policy is on. */
  automatic?: { reason: string },
): Promise<EvolutionRevision> {
  try {
    const row = await db.transaction(async (tx) => {
      const [source] = await tx
        .select()
        .from(evolutionRevisions)
        .where(eq(evolutionRevisions.id, id))
      if (!source) throw new RevisionNotFound({ id })
      const target: Target = {
        kind: source.targetKind,
        agentId: source.agentId,
        key: source.targetKey,
      }
      if (automatic && !(await lockPolicy(tx, source.agentId)).evolve) {
        throw new RevertStale({ id }, { message: 'evolution is off for this agent' })
      }
      await lockTarget(tx, target)
      const [done] = await tx
        .select({ id: evolutionRevisions.id })
        .from(evolutionRevisions)
        .where(eq(evolutionRevisions.revertsRevisionId, id))
      if (done) throw new AlreadyReverted({ id, revertedBy: done.id })
      const latest = await latestOf(tx, target)
      const current = await readTarget(tx, target)
      if (latest?.id !== id || (await snapshotHash(current)) !== source.afterSha256) {
        throw new RevertStale(
          { id, target: target.key },
          {
            message:
              latest?.id !== id
                ? `a later revision (${latest?.id}) changed ${target.key}; revert that one first`
                : `${target.key} was changed since this revision wrote it (by the owner, or outside evolution)`,
          },
        )
      }
      const revertId = createId('evolutionRevision')
      const written = await writeTarget(tx, target, source.before, revertId)
      const [inserted] = await tx
        .insert(evolutionRevisions)
        .values({
          id: revertId,
          agentId: source.agentId,
          targetKind: source.targetKind,
          targetKey: source.targetKey,
          op: 'revert',
          strategy: 'revert',
          before: current,
          after: written,
          afterSha256: await snapshotHash(written),
          revertsRevisionId: id,
          signalIds: source.signalIds,
          traceIds: source.traceIds,
          evidence: source.evidence,
          rationale: automatic ? automatic.reason : `revert of ${id} by the owner`,
          createdAt: sql`clock_timestamp()` as unknown as Date,
        })
        .returning()
      return inserted!
    })
    return toRevision(row, null)
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new AlreadyReverted({ id })
    throw error
  }
}

function toRevision(
  row: RevisionRow,
  revertedBy: string | null,
  measured: Measure | null = null,
): EvolutionRevision {
  return {
    id: row.id,
    agentId: row.agentId,
    targetKind: row.targetKind,
    targetKey: row.targetKey,
    op: row.op,
    strategy: row.strategy,
    before: row.before ?? null,
    after: row.after ?? null,
    revertsRevisionId: row.revertsRevisionId,
    revertedBy,
    signalIds: row.signalIds,
    traceIds: row.traceIds,
    evidence: row.evidence,
    rationale: row.rationale,
    measured,
    createdAt: row.createdAt.toISOString(),
  }
}

/** Changes that are measured: an overlay or skill created or amended by evolution. */
const measurable = (row: RevisionRow) =>
  (row.op === 'create' || row.op === 'amend') && row.targetKind !== 'fact'

/**
 * The newest revisions first, each with the revision that reverted it and, for an overlay or
 * skill change, how it measured (outcomes.ts: two small statements a change).
 */
export async function list(db: Db, limit = 50): Promise<EvolutionRevision[]> {
  const rows = await db
    .select()
    .from(evolutionRevisions)
    .orderBy(desc(evolutionRevisions.createdAt), desc(evolutionRevisions.id))
    .limit(limit)
  const ids = rows.map((r) => r.id)
  const reverts = ids.length
    ? await db
        .select({ id: evolutionRevisions.id, of: evolutionRevisions.revertsRevisionId })
        .from(evolutionRevisions)
        .where(inArray(evolutionRevisions.revertsRevisionId, ids))
    : []
  const by = new Map(reverts.map((r) => [r.of!, r.id]))
  const measures = await Promise.all(
    rows.map(async (r) => (measurable(r) ? ((await measureRevision(db, r)) ?? null) : null)),
  )
  return rows.map((r, i) => toRevision(r, by.get(r.id) ?? null, measures[i]))
}
