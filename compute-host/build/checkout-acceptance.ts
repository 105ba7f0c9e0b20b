import { AppError } from '../../runtime/errors.ts'
import { checkPatch } from '../../runtime/self-update/patch-policy.ts'
import { readCheckout, type CheckoutState } from '../self-update/checkout-state.ts'
import { hostGit, hostGitText, neutralFilters, type GitOptions } from '../self-update/host-git.ts'
import { parseDiff } from '../self-update/inspect-change.ts'
import { TaskFailure } from '../tasks/error-classes.ts'

// As inspect-change.ts: no external diff, no textconv, no renames, nothing that prints differently.
const DIFF = ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames']

/**
 * The completion policy of a `build-maintenance` attempt over the `AkurAI-Build` checkout, with
 * self-update's checkout reading (`readCheckout`: popagent's own git, hooks, filters and
 * fsmonitor off, nothing written). `start` is the state recorded, clean, before any agent ran.
 * What the attempt may leave behind: the same commit, or a descendant of it on the same branch
 * (a fast-forward, never a rewrite), with the remotes and remote-tracking refs as they were and
 * no uncommitted change, and the commits' change as a whole passing self-update's patch policy
 * (limits, no binary, symlink, submodule or mode change, protected paths, tests, package wiring;
 * runtime/self-update/patch-policy.ts). Anything else is a containment refusal naming what
 * changed, and no commit is accepted. Answers the accepted commit when HEAD moved.
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
  try {
    await checkCommitted(start.repo, start.head, end.head)
  } catch (error) {
    if (error instanceof AppError) refuse(`${error.code}: ${error.message}`)
    throw error
  }
  return { end, commit: end.head }
}

/** The patch policy over `base..head`, measured as inspect-change measures a staged change. */
async function checkCommitted(repo: string, base: string, head: string): Promise<void> {
  const plain: GitOptions = { cwd: repo }
  const at: GitOptions = { ...plain, config: await neutralFilters(plain) }
  const raw = await hostGitText([...DIFF, '--raw', '-z', '--no-abbrev', base, head, '--'], at)
  const numstat = await hostGitText([...DIFF, '--numstat', '-z', base, head, '--'], at)
  const patch = await hostGit([...DIFF, '--binary', '--full-index', '-U3', base, head, '--'], at)
  const files = parseDiff(raw, numstat)
  // An empty range (commits that change nothing) is no change to judge.
  if (files.length === 0) return
  const touchesPackage = files.some((f) => f.path === 'package.json' && f.status === 'M')
  checkPatch({
    files,
    patch: patch.toString('utf8'),
    patchBytes: patch.length,
    ...(touchesPackage && {
      packageJson: {
        before: await hostGitText(['show', `${base}:package.json`], at),
        after: await hostGitText(['show', `${head}:package.json`], at),
      },
    }),
  })
}
