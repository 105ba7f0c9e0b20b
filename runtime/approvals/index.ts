import { and, desc, eq, gt, lte, ne, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { approvals } from '../../db/schema/index.ts'
import type { Approval, ApprovalDecision, ApprovalStatus } from '../contracts/approvals.ts'
import { createId } from '../ids.ts'
import { AnsweredWithProposal, ApprovalNotFound } from './errors.ts'

/**
 * Approvals (X6): questions a run asks the owner, one row each. The rules, all held by the
 * statements below rather than by callers:
 *
 * - **The first answer wins.** A decision is one UPDATE guarded by `status = 'pending'`; a second
 *   answer (a double tap, the web and the phone at once) changes nothing and gets the decision
 *   that stands, with `changed: false`.
 * - **Unanswered is denied.** A row past `expires_at` cannot be decided; whoever meets it first
 *   (the waiting run, a late answer) marks it `expired`, and an expired approval is a deny.
 * - **Only the owner answers.** These functions record who decided; the callers decide who may:
 *   the edge's /api routes behind the owner's key (`owner-web`), and the channel service for an
 *   allowlisted sender of the channel the question was asked on (`channel:<id>:<sender>`).
 *
 * `expires_at` is computed by PostgreSQL from its own clock, so a host with a skewed clock cannot
 * lengthen or shorten a question's life.
 */
export type ApprovalRow = typeof approvals.$inferSelect

export function toView(row: ApprovalRow): Approval {
  return {
    id: row.id,
    kind: row.kind,
    toolName: row.toolName,
    summary: row.summary,
    reason: row.reason,
    sessionId: row.sessionId,
    taskId: row.taskId,
    runId: row.runId,
    proposalId: row.proposalId,
    bindingId: row.bindingId,
    status: row.status,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  }
}

export async function create(
  db: Db,
  input: {
    kind?: ApprovalRow['kind']
    toolName: string | null
    summary: string
    reason: string | null
    sessionId?: string | undefined
    taskId?: string | undefined
    runId?: string | undefined
    proposalId?: string | undefined
    bindingId?: string | null | undefined
    timeoutMs: number
    details?: Record<string, unknown>
  },
): Promise<ApprovalRow> {
  const [row] = await db
    .insert(approvals)
    .values({
      id: createId('approval'),
      kind: input.kind ?? 'tool-call',
      toolName: input.toolName,
      summary: input.summary,
      reason: input.reason,
      sessionId: input.sessionId ?? null,
      taskId: input.taskId ?? null,
      runId: input.runId ?? null,
      proposalId: input.proposalId ?? null,
      bindingId: input.bindingId ?? null,
      status: 'pending',
      expiresAt: sql`now() + ${Math.max(0, Math.round(input.timeoutMs))} * interval '1 millisecond'`,
      details: input.details ?? {},
    })
    .returning()
  return row!
}

export async function rowOf(db: Db, id: string): Promise<ApprovalRow | undefined> {
  const [row] = await db.select().from(approvals).where(eq(approvals.id, id))
  return row
}

/** Marks a pending approval expired (its time is up, or its run ended); the row as it stands. */
export async function expire(db: Db, id: string): Promise<ApprovalRow | undefined> {
  const [row] = await db
    .update(approvals)
    .set({ status: 'expired', updatedAt: new Date() })
    .where(and(eq(approvals.id, id), eq(approvals.status, 'pending')))
    .returning()
  return row ?? rowOf(db, id)
}

/** Marks every pending approval whose time is up expired (a late read never shows them open). */
async function expireOverdue(db: Db): Promise<void> {
  await db
    .update(approvals)
    .set({ status: 'expired', updatedAt: new Date() })
    .where(and(eq(approvals.status, 'pending'), lte(approvals.expiresAt, sql`now()`)))
}

/**
 * Answers an approval once. `by` is who answered (`owner-web`, `channel:<id>:<sender>`); the
 * caller has already established that they are the owner. A second answer, or one after the
 * approval expired, changes nothing and returns the approval as it stands.
 *
 * An `evolution-proposal` approval is not answered here: its answer is the proposal's own
 * approval or rejection (runtime/evolution/proposals.ts, which settles it), so that the policy,
 * the gates and the secret check apply. A pending one is refused (`ANSWERED_WITH_PROPOSAL`).
 */
export async function decide(
  db: Db,
  id: string,
  decision: ApprovalDecision,
  by: string,
): Promise<{ row: ApprovalRow; changed: boolean }> {
  const [decided] = await db
    .update(approvals)
    .set({
      status: decision === 'allow' ? 'allowed' : 'denied',
      decidedBy: by,
      decidedAt: sql`now()`,
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(approvals.id, id),
        eq(approvals.status, 'pending'),
        gt(approvals.expiresAt, sql`now()`),
        ne(approvals.kind, 'evolution-proposal'),
      ),
    )
    .returning()
  if (decided) return { row: decided, changed: true }
  const row = await rowOf(db, id)
  if (!row) throw new ApprovalNotFound({ id })
  if (row.kind === 'evolution-proposal' && row.status === 'pending') {
    throw new AnsweredWithProposal({ id, proposalId: row.proposalId })
  }
  // Still pending but not decidable: its time is up. Record that, so every reader agrees.
  if (row.status === 'pending') return { row: (await expire(db, id)) ?? row, changed: false }
  return { row, changed: false }
}

export async function get(db: Db, id: string): Promise<Approval> {
  await expireOverdue(db)
  const row = await rowOf(db, id)
  if (!row) throw new ApprovalNotFound({ id })
  return toView(row)
}

/** The newest approvals, optionally of one status; overdue pending ones are expired first. */
export async function list(
  db: Db,
  query: { status?: ApprovalStatus | undefined; limit: number },
): Promise<Approval[]> {
  await expireOverdue(db)
  const rows = await db
    .select()
    .from(approvals)
    .where(query.status ? eq(approvals.status, query.status) : undefined)
    .orderBy(desc(approvals.createdAt), desc(approvals.id))
    .limit(query.limit)
  return rows.map(toView)
}

/** How long an answered or expired approval is kept for the owner to look back on. */
export const APPROVAL_RETENTION_DAYS = 30

/**
 * Deletes approvals settled more than APPROVAL_RETENTION_DAYS ago: decided ones by when they were
 * answered, expired ones (and pending ones nobody marked, long past their time) by when their
 * time ran out. A pending approval still within its time is never touched, whatever its age.
 * Answers how many went. Run by the host's hourly retention loop.
 */
export async function prune(db: Db): Promise<number> {
  const rows = await db
    .delete(approvals)
    .where(
      lte(
        sql`coalesce(${approvals.decidedAt}, ${approvals.expiresAt})`,
        sql`now() - make_interval(days => ${APPROVAL_RETENTION_DAYS})`,
      ),
    )
    .returning({ id: approvals.id })
  return rows.length
}

/**
 * Settles the pending question asked about an evolution proposal, once the proposal itself is
 * decided (on the web or with the question's own button): `allowed` for approved, `denied` for
 * rejected, by whoever decided the proposal. Inside the proposal's transaction, so the two
 * always agree; a question already settled or expired is left as it is.
 */
export async function settleProposal(
  tx: Pick<Db, 'update'>,
  proposalId: string,
  status: 'allowed' | 'denied',
  by: string,
): Promise<void> {
  await tx
    .update(approvals)
    .set({ status, decidedBy: by, decidedAt: sql`now()`, updatedAt: new Date() })
    .where(and(eq(approvals.proposalId, proposalId), eq(approvals.status, 'pending')))
}
