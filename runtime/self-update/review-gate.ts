import { PatchChangedAfterReview, ReviewDigestMismatch, ReviewNotApproved } from './errors.ts'

export type ReviewVerdict = {
  /** The digest the reviewer echoes from the patch it was shown. */
  digest: string
  verdict: 'approve' | 'reject'
  testIntegrity: 'unchanged' | 'strengthened' | 'weakened'
  findings: readonly { severity: 'blocker' | 'major' | 'minor' | 'note'; text: string }[]
}

/**
 * A review counts only for the exact patch it was shown: the reviewer must echo that patch's
 * digest, approve, raise no blocker and not weaken the tests. Anything else leaves no commit.
 */
export function acceptReview(shownDigest: string, review: ReviewVerdict): void {
  if (review.digest !== shownDigest) {
    throw new ReviewDigestMismatch({ shown: shownDigest, echoed: review.digest })
  }
  const blocker = review.findings.find((finding) => finding.severity === 'blocker')
  if (review.verdict !== 'approve' || blocker || review.testIntegrity === 'weakened') {
    const why =
      review.verdict !== 'approve'
        ? 'the reviewer rejected it'
        : blocker
          ? `a blocker: ${blocker.text.slice(0, 200)}`
          : 'it weakens the tests'
    throw new ReviewNotApproved(
      { verdict: review.verdict, testIntegrity: review.testIntegrity },
      { message: `the review did not approve the change: ${why}` },
    )
  }
}

/** Refuses a change whose digest is no longer the reviewed one (re-checked before commit and at import). */
export function requireReviewed(reviewedDigest: string, currentDigest: string): void {
  if (currentDigest === reviewedDigest) return
  throw new PatchChangedAfterReview({ reviewed: reviewedDigest, current: currentDigest })
}
