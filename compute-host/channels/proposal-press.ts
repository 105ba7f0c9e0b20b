import type { Db } from '../../db/index.ts'
import * as ApprovalStore from '../../runtime/approvals/index.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'
import type { EvolutionProposal } from '../../runtime/contracts/evolution.ts'
import { AppError } from '../../runtime/errors.ts'

/**
 * A press on an evolution proposal's question (compute-host/evolution/channel-review.ts): the
 * owner's answer is the proposal's own approval or rejection, through the web's code path
 * (`decide`), never a bare "allowed" on the approval. That path settles the question in its
 * transaction, so:
 *
 * - a question already settled (decided on the web, or an earlier press) is answered with what
 *   was decided, and nothing is called;
 * - a refusal (`PROPOSAL_STALE`, `PROPOSAL_BLOCKED`) changes nothing and leaves the question open,
 *   so the owner may still reject it here; `PROPOSAL_CARRIES_SECRET` sets the proposal aside and
 *   settles the question denied;
 * - an expired question does nothing: the proposal waits in the review queue on the web.
 */
export type ProposalDecider = (
  proposalId: string,
  decision: 'approve' | 'reject',
  by: string,
) => Promise<EvolutionProposal>

type Outcome = { text: string; state: 'done' | 'refused'; detail: string }

const SETTLED = { allowed: 'approved', denied: 'rejected' } as const

export async function answerProposalPress(
  db: Db,
  row: ApprovalRow,
  decision: 'allow' | 'deny',
  by: string,
  decide: ProposalDecider | undefined,
): Promise<Outcome> {
  const settled = (status: string): Outcome => ({
    text: `Already decided: ${SETTLED[status as keyof typeof SETTLED] ?? status}.`,
    state: 'done',
    detail: `approval ${row.id} was already ${status}`,
  })
  if (row.status === 'allowed' || row.status === 'denied') return settled(row.status)
  if (row.status === 'expired' || row.expiresAt.getTime() <= Date.now() || !row.proposalId) {
    if (row.status === 'pending') await ApprovalStore.expire(db, row.id)
    return {
      text: 'This question has expired; the proposal waits on the Autonomy page.',
      state: 'done',
      detail: `approval ${row.id} expired`,
    }
  }
  if (!decide) {
    return {
      text: 'Proposals cannot be decided from this host; use the Autonomy page.',
      state: 'refused',
      detail: 'no proposal decider on this host',
    }
  }
  try {
    const proposal = await decide(row.proposalId, decision === 'allow' ? 'approve' : 'reject', by)
    const now = await ApprovalStore.rowOf(db, row.id)
    // Settled by someone else first (the web, between the read above and the decision).
    if (now && now.decidedBy !== by && (now.status === 'allowed' || now.status === 'denied')) {
      return settled(now.status)
    }
    return {
      text:
        proposal.status === 'approved'
          ? `Done: approved (revision ${proposal.revisionId}).`
          : 'Done: rejected.',
      state: 'done',
      detail: `proposal ${proposal.id} ${proposal.status}`,
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    if (error.code === 'PROPOSAL_DECIDED') {
      const now = await ApprovalStore.rowOf(db, row.id)
      return settled(now?.status === 'pending' ? 'decided' : (now?.status ?? 'decided'))
    }
    return {
      text: `Not applied: ${error.message}`,
      state: 'refused',
      detail: `proposal ${row.proposalId}: ${error.code}`,
    }
  }
}
