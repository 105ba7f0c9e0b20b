import { ReviewNotApproved } from '../../runtime/self-update/errors.ts'
import type { Approvals } from '../approvals/approvals.ts'

/**
 * The owner's review of a self-update patch, after the model reviewer approved it and before the
 * commit: asked through approvals the same way a hook's `ask` is (the web UI lists it; a task
 * that names a channel conversation for its result is asked there too, with buttons), and bounded
 * by POPAGENT_SELF_UPDATE_OWNER_REVIEW_S and the attempt itself (its timeout, a cancel). The
 * question names the digest the reviewer echoed, so the owner approves exactly the patch the
 * commit will carry (the commit re-checks that digest). Denied or unanswered, no commit: the
 * task fails as a review refusal, for good; a stopped attempt ends as the attempt's stop.
 */
const PATCH_PREVIEW_CHARS = 600

export async function ownerReview(
  approvals: Approvals | undefined,
  review: {
    taskId: string
    runId: string
    goal: string
    summary: string
    digest: string
    patch: string
    waitMs: number
    bindingId?: string | null | undefined
    signal: AbortSignal
  },
): Promise<void> {
  if (!approvals) {
    throw new ReviewNotApproved(
      { owner: 'unavailable' },
      { message: 'the owner must review self-update patches, but this host cannot ask' },
    )
  }
  const answer = await approvals.ask({
    kind: 'self-update-patch',
    summary: [
      `Goal: ${review.goal}`,
      `Change: ${review.summary}`,
      `Patch digest: ${review.digest}`,
      review.patch.slice(0, PATCH_PREVIEW_CHARS),
    ].join('\n'),
    reason: 'self-update patches wait for the owner’s review (POPAGENT_SELF_UPDATE_OWNER_REVIEW_S)',
    scope: { taskId: review.taskId, runId: review.runId },
    bindingId: review.bindingId,
    timeoutMs: review.waitMs,
    signal: review.signal,
  })
  if (answer.status === 'allowed') return
  if (review.signal.aborted) throw review.signal.reason
  throw new ReviewNotApproved(
    { owner: answer.status, approvalId: answer.id },
    {
      message:
        answer.status === 'denied'
          ? 'the owner rejected the change'
          : `the owner did not review the change within ${Math.round(review.waitMs / 1000)} s, and an unanswered review is a rejection`,
    },
  )
}
