import { chmod, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { selfUpdateBranch } from '../../runtime/self-update/branch.ts'
import { CheckoutUnusable } from '../../runtime/self-update/errors.ts'
import type { CheckoutState } from './checkout-state.ts'
import { hostGit, hostGitText, type GitOptions } from './host-git.ts'

/** The clone a self-update attempt works in: a work tree for the agents and a git directory beside it. */
export type SelfUpdateClone = {
  workTree: string
  gitDir: string
  branch: string
  baseSha: string
}

/**
 * A fresh, private copy of the owner's repository at the recorded commit. Objects are copied, not
 * linked (`--no-local --no-hardlinks`), so nothing done in the clone can reach the original's
 * object store. The git directory lives apart from the work tree and the work tree's `.git` link
 * is removed, so agents and the sandbox see files only and cannot rewrite git's configuration;
 * `origin` is removed, so the clone has no remote to push to.
 */
export async function freshClone(options: {
  checkout: CheckoutState
  taskId: string
  /** An empty directory outside every workspace, owned by the host. */
  into: string
}): Promise<SelfUpdateClone> {
  const { checkout } = options
  const branch = selfUpdateBranch(options.taskId)
  const workTree = join(options.into, 'work')
  const gitDir = join(options.into, 'git')
  await mkdir(options.into, { recursive: true, mode: 0o700 })
  await chmod(options.into, 0o700)
  await hostGit(
    [
      'clone',
      '--quiet',
      '--no-local',
      '--no-hardlinks',
      '--single-branch',
      '--no-tags',
      '--no-checkout',
      `--separate-git-dir=${gitDir}`,
      '--',
      checkout.repo,
      workTree,
    ],
    { cwd: options.into },
  )
  await rm(join(workTree, '.git'), { force: true })
  const inClone: GitOptions = { cwd: workTree, env: { GIT_DIR: gitDir, GIT_WORK_TREE: workTree } }
  await hostGit(['remote', 'remove', 'origin'], inClone)
  const has = await hostGitText(['cat-file', '-t', checkout.head], inClone).catch(() => '')
  if (has.trim() !== 'commit') {
    throw new CheckoutUnusable(
      { repo: checkout.repo, head: checkout.head },
      {
        message: `the clone of ${checkout.repo} does not hold ${checkout.head}; is HEAD on a branch?`,
      },
    )
  }
  await hostGit(['switch', '--quiet', '--no-guess', '--create', branch, checkout.head], inClone)
  return { workTree, gitDir, branch, baseSha: checkout.head }
}

/** Git options for working in the clone (the work tree has no `.git` of its own). */
export function inClone(clone: SelfUpdateClone): GitOptions {
  return { cwd: clone.workTree, env: { GIT_DIR: clone.gitDir, GIT_WORK_TREE: clone.workTree } }
}
