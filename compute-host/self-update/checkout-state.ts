import { createHash } from 'node:crypto'
import { readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { CheckoutDirty, CheckoutUnusable } from '../../runtime/self-update/errors.ts'
import { GitFailed, hostGit, hostGitText, neutralFilters, type GitOptions } from './host-git.ts'

/** What self-update records about the owner's repository before it starts and checks again before it writes a ref. */
export type CheckoutState = {
  repo: string
  gitDir: string
  head: string
  /** `refs/heads/<name>`, or null on a detached HEAD. */
  branch: string | null
  /** SHA-256 of the remote-tracking refs and the `remote.*` configuration. */
  remoteDigest: string
  /** SHA-256 of `.git/index` (empty string when there is none). */
  indexDigest: string
  /** Every ref and the object it names. */
  refs: ReadonlyMap<string, string>
  /** `status --porcelain` entries; empty for a clean checkout. */
  changes: string[]
}

const SHOWN_CHANGES = 20

/**
 * Reads the repository the way the import will judge it. Status runs with hooks, fsmonitor and
 * every configured filter off and without taking the index lock, so looking changes nothing.
 * Changes inside a submodule's work tree are not looked at (the import writes a ref, never a
 * submodule); another commit checked out in one is a change.
 */
export async function readCheckout(repoPath: string): Promise<CheckoutState> {
  const repo = await realpath(repoPath)
  const at: GitOptions = { cwd: repo }
  const top = await hostGitText(['rev-parse', '--show-toplevel'], at).catch(unusable(repo))
  if ((await realpath(top.trim())) !== repo) {
    throw new CheckoutUnusable(
      { repo },
      { message: `${repo} is inside another repository, not the root of its own` },
    )
  }
  const gitDir = (await hostGitText(['rev-parse', '--absolute-git-dir'], at)).trim()
  const head = (
    await hostGitText(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], at).catch(
      unusable(repo, 'it has no commit yet'),
    )
  ).trim()
  const branch = await hostGitText(['symbolic-ref', '--quiet', 'HEAD'], at).then(
    (name) => name.trim(),
    () => null,
  )
  const refs = new Map<string, string>()
  const listing = await hostGitText(['for-each-ref', '--format=%(objectname) %(refname)'], at)
  for (const line of listing.split('\n').filter(Boolean)) {
    const space = line.indexOf(' ')
    refs.set(line.slice(space + 1), line.slice(0, space))
  }
  const remoteConfig = await hostGit(['config', '--null', '--get-regexp', '^remote\\.'], at).catch(
    () => Buffer.alloc(0),
  )
  const remoteRefs = [...refs].filter(([name]) => name.startsWith('refs/remotes/')).join('\n')
  // `dirty`, not `none`: git then compares each submodule's checked-out commit with the recorded
  // one in-process, and does not start a `git status` inside it. That child git would read the
  // submodule's own configuration and attributes, which the agent's shell can write (its `.git`
  // link can be replaced by a repository of its own), and run their filters on the host.
  const status = await hostGit(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=dirty'],
    { ...at, config: await neutralFilters(at) },
  )
  return {
    repo,
    gitDir,
    head,
    branch,
    remoteDigest: sha256(Buffer.concat([remoteConfig, Buffer.from(`\0${remoteRefs}`)])),
    indexDigest: await readFile(join(gitDir, 'index')).then(sha256, () => ''),
    refs,
    changes: status.toString('utf8').split('\0').filter(Boolean),
  }
}

/** Refuses a checkout with any staged, unstaged or untracked change (ignored files are fine). */
export async function requireCleanCheckout(repoPath: string): Promise<CheckoutState> {
  const state = await readCheckout(repoPath)
  if (state.changes.length > 0) {
    throw new CheckoutDirty(
      {
        repo: state.repo,
        changes: state.changes.slice(0, SHOWN_CHANGES),
        count: state.changes.length,
      },
      {
        message:
          `${state.repo} has ${state.changes.length} uncommitted or untracked change(s); ` +
          'self-update starts only from a clean checkout: commit or stash them first',
      },
    )
  }
  return state
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

function unusable(repo: string, why = 'it is not a Git repository') {
  return (error: unknown): never => {
    const detail = error instanceof GitFailed ? error.detail : String(error)
    throw new CheckoutUnusable({ repo }, { message: `${repo} cannot be used: ${why} (${detail})` })
  }
}
