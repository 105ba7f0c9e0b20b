import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents, approvals, evolutionProposals } from '../../db/schema/index.ts'
import * as ApprovalStore from '../../runtime/approvals/index.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'
import type { EvolutionProposal } from '../../runtime/contracts/evolution.ts'
import { reviewBinding } from '../../runtime/evolution/policy.ts'
import * as Proposals from '../../runtime/evolution/proposals.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../runtime/pg-errors.ts'
import { stableJson } from '../../runtime/stable-json.ts'

/**
 * Evolution review on a channel: a held proposal is also asked, as an approval of kind
 * `evolution-proposal`, in the conversation the owner named (`reviewBindingId` of evolution's
 * defaults). The question says which agent, what would change (short, redacted) and why; its
 * buttons approve or reject the proposal itself through `decideProposal`, the web's own path
 * (the policy read again under its lock, the gates, `PROPOSAL_STALE`, the secret check). The
 * proposal's decision settles the question in the same transaction (runtime/evolution/proposals),
 * so a proposal decided on the web makes a later press "already decided".
 *
 * The question lives for QUESTION_MS; past it the buttons are expired, and the proposal still
 * waits in the review queue (an unanswered question rejects nothing).
 */
export const QUESTION_MS = 7 * 24 * 60 * 60_000
const AFTER_CHARS = 400
const RATIONALE_CHARS = 500

/** Approves or rejects a held proposal as the owner; `by` names who (`owner-web`, a channel sender). */
export async function decideProposal(
  deps: { db: Db; vault: { sync(): Promise<unknown> }; redact: (text: string) => string },
  id: string,
  decision: 'approve' | 'reject',
  by: string,
): Promise<EvolutionProposal> {
  if (decision === 'reject') return Proposals.reject(deps.db, id, by)
  // A secret stored through another host is in this host's redactor only after a sync.
  await deps.vault.sync()
  return Proposals.approve(deps.db, id, deps.redact, by)
}

/**
 * Asks about a held proposal on the owner's review conversation, if one is named and the
 * proposal still waits; once per proposal (a replayed batch, or two callers, ask nothing more).
 * Answers the approval asked, or undefined.
 */
export async function askProposal(
  deps: {
    db: Db
    redact: (text: string) => string
    notify: (approval: ApprovalRow) => Promise<void>
  },
  proposalId: string,
): Promise<ApprovalRow | undefined> {
  const { db } = deps
  const bindingId = await reviewBinding(db)
  if (!bindingId) return undefined
  const [proposal] = await db
    .select({ p: evolutionProposals, agentName: agents.displayName })
    .from(evolutionProposals)
    .leftJoin(agents, eq(agents.id, evolutionProposals.agentId))
    .where(eq(evolutionProposals.id, proposalId))
  if (!proposal || proposal.p.status !== 'pending') return undefined
  const [asked] = await db
    .select({ id: approvals.id })
    .from(approvals)
    .where(eq(approvals.proposalId, proposalId))
  if (asked) return undefined
  const p = proposal.p
  const after = stableJson(p.after ?? null)
  const summary = [
    `${p.strategy} on ${p.targetKind} ${p.targetKey}`,
    `Would write: ${after.length > AFTER_CHARS ? `${after.slice(0, AFTER_CHARS)}…` : after}`,
  ].join('\n')
  let row: ApprovalRow
  try {
    row = await ApprovalStore.create(db, {
      kind: 'evolution-proposal',
      toolName: null,
      summary: deps.redact(summary),
      reason: deps.redact(p.rationale.slice(0, RATIONALE_CHARS)),
      proposalId,
      bindingId,
      timeoutMs: QUESTION_MS,
      details: { agentId: p.agentId, agentName: proposal.agentName ?? p.agentId },
    })
  } catch (error) {
    // Asked by another caller meanwhile (the unique index on proposal_id): nothing more to do.
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) return undefined
    throw error
  }
  await deps.notify(row)
  return row
}
