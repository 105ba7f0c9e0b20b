import { readCheckout, type CheckoutState } from '../self-update/checkout-state.ts'
import { hostGit } from '../self-update/host-git.ts'
import { TaskFailure } from '../tasks/error-classes.ts'

/**
 * The completion policy of a `build-maintenance` attempt over the `AkurAI-Build` checkout, with
 * self-update's checkout reading (`readCheckout`: popagent's own git, hooks, filters and
 * fsmonitor off, nothing written). `start` is the state recorded, clean, before any agent ran.
 * What the attempt may leave behind: the same commit, or a descendant of it on the same branch
 * (a fast-forward, never a rewrite), with the remotes and remote-tracking refs as they were and
 * no uncommitted change. Anything else is a containment refusal naming what changed, and no
 * commit is accepted. Answers the accepted commit when HEAD moved.
 */
export async function acceptCheckout(
  start: CheckoutState,
): Promise<{ end: CheckoutState; commit: string | undefined }> {
  const end = await readCheckout(start.repo)
  const refuse = (why: string): never => {
    throw new TaskFailure('containment', `build-maintenance refused the checkout: ${why}`)
  }
  if (end.remoteDigest !== start.remoteDigest) {
    refuse('the remotes or remote-tracking refs changed during the run')
  }
  if (end.branch !== start.branch) {
    refuse(
      `HEAD moved from ${start.branch ?? 'a detached HEAD'} to ${end.branch ?? 'a detached HEAD'}`,
    )
  }
  if (end.changes.length > 0) {
    refuse(
      `${end.changes.length} uncommitted or untracked change(s) were left (${end.changes.slice(0, 5).join(', ')}); only a committed descendant is accepted`,
    )
  }
  if (end.head === start.head) return { end, commit: undefined }
  // Exit 0: `start.head` is an ancestor of the new HEAD. Exit 1 (or any failure): it is not.
  const descendant = await hostGit(['merge-base', '--is-ancestor', start.head, end.head], {
    cwd: start.repo,
  }).then(
    () => true,
    () => false,
  )
  if (!descendant)
    refuse(`${end.head} is not a descendant of ${start.head} (history was rewritten)`)
  return { end, commit: end.head }
}
