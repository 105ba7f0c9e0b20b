import { desc, eq } from '../../db/drizzle-orm.ts'
import type { ProposalStatus } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { evolutionProposals } from '../../db/schema/index.ts'
import { settleProposal } from '../approvals/index.ts'
import type { EvolutionProposal } from '../contracts/evolution.ts'
import { createId } from '../ids.ts'
import { changesToday, DAILY_CHANGES } from './daily-limit.ts'
import {
  ProposalBlocked,
  ProposalCarriesSecret,
  ProposalDecided,
  ProposalNotFound,
  ProposalStale,
} from './errors.ts'
import { lockPolicy, type AgentPolicy, type Tx } from './policy.ts'
import { PROTECTED_KEY } from './protected-keys.ts'
import { applyChange, lockTarget, type ChangeInput } from './revisions.ts'
import { readTarget, snapshotHash, type Target } from './targets.ts'

type ProposalRow = typeof evolutionProposals.$inferSelect

/**
 * The review queue (issue 39): for an agent under review, the worker holds what it would have
 * applied as a proposal instead of changing anything. The owner approves it (applied through the
 * same checks as the worker's own change, in one transaction) or rejects it (discarded).
 */

/**
 * Holds a change inside the worker's transaction (which has locked the policy): the target is
 * locked and read, and the proposal stores that "before", its hash, and the "after" it would
 * write. A replayed batch (same decision key) finds its proposal and holds nothing new.
 */
export async function hold(tx: Tx, input: ChangeInput): Promise<string> {
  const [replayed] = await tx
    .select({ id: evolutionProposals.id })
    .from(evolutionProposals)
    .where(eq(evolutionProposals.decisionKey, input.decisionKey))
  if (replayed) return replayed.id
  await lockTarget(tx, input.target)
  const before = await readTarget(tx, input.target)
  const id = createId('evolutionProposal')
  await tx.insert(evolutionProposals).values({
    id,
    agentId: input.target.agentId,
    targetKind: input.target.kind,
    targetKey: input.target.key,
    strategy: input.strategy,
    before,
    after: input.after,
    beforeSha256: await snapshotHash(before),
    decisionKey: input.decisionKey,
    signalIds: input.signalIds,
    traceIds: input.traceIds,
    sessionId: input.sessionId ?? null,
    evidence: input.evidence,
    rationale: input.rationale,
  })
  return id
}

/**
 * Why the policy forbids this change now (the gates that depend on the owner's switches, read
 * again under the lock), or undefined. The model-facing gates (cited evidence, confidence, the
 * catalog, the secret check) ran when the proposal was made; what is stored is what applies.
 */
function blockedBy(policy: AgentPolicy, row: ProposalRow): string | undefined {
  if (!policy.evolve) return 'evolution is off for this agent'
  if (row.targetKind === 'skill' && !policy.skillCreation) return 'skill creation is off'
  if (row.targetKind === 'fact') {
    if (!policy.factRetention) return 'automatic fact retention is off'
    const key = row.targetKey.slice(`evolution.${row.agentId}.`.length)
    if (PROTECTED_KEY.test(key)) return `the fact key "${key}" names a boundary only the owner sets`
  }
  return undefined
}

/** Locks the agent's policy, then the proposal row; undefined agent: no such proposal. */
async function lockProposal(
  tx: Tx,
  id: string,
): Promise<{ row: ProposalRow; policy: AgentPolicy }> {
  const [peek] = await tx
    .select({ agentId: evolutionProposals.agentId })
    .from(evolutionProposals)
    .where(eq(evolutionProposals.id, id))
  if (!peek) throw new ProposalNotFound({ id })
  const policy = await lockPolicy(tx, peek.agentId)
  const [row] = await tx
    .select()
    .from(evolutionProposals)
    .where(eq(evolutionProposals.id, id))
    .for('update')
  if (!row) throw new ProposalNotFound({ id })
  return { row, policy }
}

/**
 * Applies a held proposal, once: the policy is read again under its lock (off, or the kind's
 * switch off: refused), the daily limit is counted, and the target must still hold exactly what
 * the proposal read (`PROPOSAL_STALE` otherwise: an owner's edit or another change since). Then
 * the change and its revision are written as the worker would, and the proposal records it. A
 * second approval returns the approved proposal; approving a rejected one is a 409. Any refusal
 * changes nothing and leaves the proposal waiting, but one: what it would write (its "after",
 * evidence and rationale) is read again through the host's redactor, which knows the vault's
 * secrets as they are now. A secret added since the proposal was held makes it
 * `PROPOSAL_CARRIES_SECRET`: nothing is applied, and the proposal is set aside (rejected) with
 * its stored text redacted, so the secret is neither written into a revision nor shown again.
 *
 * `by` is who decided (`owner-web`, or `channel:<id>:<sender>` for a button on the question asked
 * on a channel): a decision settles that question in the same transaction, so a later press on
 * it is told what was decided.
 */
export async function approve(
  db: Db,
  id: string,
  redact: (text: string) => string,
  by = 'owner-web',
): Promise<EvolutionProposal> {
  const secret = await db.transaction(async (tx) => {
    const { row } = await lockProposal(tx, id)
    if (row.status !== 'pending' || !carriesSecret(row, redact)) return false
    await tx
      .update(evolutionProposals)
      .set({
        status: 'rejected',
        decidedAt: new Date(),
        after: redactedSnapshot(row.after ?? null, redact),
        evidence: redact(row.evidence),
        rationale: redact(row.rationale),
      })
      .where(eq(evolutionProposals.id, id))
    await settleProposal(tx, id, 'denied', by)
    return true
  })
  if (secret) {
    throw new ProposalCarriesSecret(
      { id },
      {
        message:
          'this proposal carries a value that is now a vault secret; nothing was applied and the proposal was set aside with the secret redacted',
      },
    )
  }
  const row = await db.transaction(async (tx) => {
    const { row, policy } = await lockProposal(tx, id)
    if (row.status === 'approved') return row
    if (row.status === 'rejected') {
      throw new ProposalDecided({ id }, { message: 'this proposal was rejected; it cannot apply' })
    }
    // Held again between the two transactions? Only by another approval, which re-checked it.
    if (carriesSecret(row, redact)) throw new ProposalCarriesSecret({ id })
    const blocked = blockedBy(policy, row)
    if (blocked) throw new ProposalBlocked({ id }, { message: `${blocked}; nothing was changed` })
    if ((await changesToday(tx, row.agentId)) >= DAILY_CHANGES) {
      throw new ProposalBlocked(
        { id },
        { message: `${DAILY_CHANGES} changes in the last 24 h; approve it later` },
      )
    }
    const target: Target = { kind: row.targetKind, agentId: row.agentId, key: row.targetKey }
    await lockTarget(tx, target)
    if ((await snapshotHash(await readTarget(tx, target))) !== row.beforeSha256) {
      throw new ProposalStale(
        { id, target: target.key },
        {
          message: `${target.key} changed since this proposal was made (by the owner, a revert or another change); nothing was changed, reject it and let evolution propose again`,
        },
      )
    }
    const revisionId = await applyChange(tx, {
      target,
      strategy: row.strategy,
      after: row.after ?? null,
      signalIds: row.signalIds,
      traceIds: row.traceIds,
      evidence: row.evidence,
      rationale: `${row.rationale} (approved by the owner: ${row.id})`.slice(0, 600),
      decisionKey: row.decisionKey,
      sessionId: row.sessionId,
    })
    const [approved] = await tx
      .update(evolutionProposals)
      .set({ status: 'approved', revisionId, decidedAt: new Date() })
      .where(eq(evolutionProposals.id, id))
      .returning()
    await settleProposal(tx, id, 'allowed', by)
    return approved!
  })
  return toProposal(row)
}

/** Whether anything the proposal would write holds a value the redactor now hides. */
function carriesSecret(row: ProposalRow, redact: (text: string) => string): boolean {
  const texts = [JSON.stringify(row.after ?? null), row.evidence, row.rationale]
  return texts.some((text) => redact(text) !== text)
}

function redactedSnapshot(
  snapshot: Record<string, unknown> | null,
  redact: (text: string) => string,
): Record<string, unknown> | null {
  if (!snapshot) return null
  return Object.fromEntries(
    Object.entries(snapshot).map(([k, v]) => [k, typeof v === 'string' ? redact(v) : v]),
  )
}

/**
 * Discards a held proposal, once; nothing it would have written is written. `by` as for approve
 * (its channel question, if any, is settled denied).
 */
export async function reject(db: Db, id: string, by = 'owner-web'): Promise<EvolutionProposal> {
  const row = await db.transaction(async (tx) => {
    const { row } = await lockProposal(tx, id)
    if (row.status === 'rejected') return row
    if (row.status === 'approved') {
      throw new ProposalDecided(
        { id, revisionId: row.revisionId },
        { message: 'this proposal was approved already; revert its revision instead' },
      )
    }
    const [rejected] = await tx
      .update(evolutionProposals)
      .set({ status: 'rejected', decidedAt: new Date() })
      .where(eq(evolutionProposals.id, id))
      .returning()
    await settleProposal(tx, id, 'denied', by)
    return rejected!
  })
  return toProposal(row)
}

function toProposal(row: ProposalRow): EvolutionProposal {
  return {
    id: row.id,
    agentId: row.agentId,
    targetKind: row.targetKind,
    targetKey: row.targetKey,
    strategy: row.strategy,
    before: row.before ?? null,
    after: row.after ?? null,
    signalIds: row.signalIds,
    traceIds: row.traceIds,
    evidence: row.evidence,
    rationale: row.rationale,
    status: row.status,
    revisionId: row.revisionId,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }
}

/** Newest first; pending ones only unless a status is named. */
export async function list(
  db: Db,
  status: ProposalStatus = 'pending',
  limit = 100,
): Promise<EvolutionProposal[]> {
  const rows = await db
    .select()
    .from(evolutionProposals)
    .where(eq(evolutionProposals.status, status))
    .orderBy(desc(evolutionProposals.createdAt), desc(evolutionProposals.id))
    .limit(limit)
  return rows.map(toProposal)
}
