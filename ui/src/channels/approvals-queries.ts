import { query, revalidate } from '@solidjs/router'
import type { ApprovalDecision } from '../../../runtime/contracts/approvals.ts'
import { api, ok } from '../api.ts'

/** Questions runs are waiting on (a PreToolUse hook's `ask`), newest first. */
export const getPendingApprovals = query(
  () => ok(api.approvals.$get({ query: { status: 'pending' } })),
  'approvals-pending',
)

export const refreshApprovals = () => revalidate(getPendingApprovals.key)

/** The owner's answer; the first answer wins, so a stale one only refreshes the list. */
export async function decideApproval(id: string, decision: ApprovalDecision) {
  const answer = await ok(api.approvals[':id'].$post({ param: { id }, json: { decision } }))
  await refreshApprovals()
  return answer
}
