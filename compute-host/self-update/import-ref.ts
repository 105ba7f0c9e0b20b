import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { selfUpdateRef } from '../../runtime/self-update/branch.ts'
import { ImportRefused } from '../../runtime/self-update/errors.ts'
import { patchDigest } from '../../runtime/self-update/patch-digest.ts'
import { requireReviewed } from '../../runtime/self-update/review-gate.ts'
import { readCheckout, type CheckoutState } from './checkout-state.ts'
import { commitEnvironment } from './commit-identity.ts'
import { hostGitText, type GitOptions } from './host-git.ts'

export type ReviewedChange = {
  taskId: string
  createdAt: Date
  baseSha: string
  /** The reviewed canonical patch and the digest the reviewer echoed. */
  patch: Buffer
  digest: string
  treeSha: string
  /** The commit the clone made; the rebuilt one must be identical. */
  commitSha: string
  message: string
}

/**
 * Brings a reviewed change into the owner's repository as `refs/heads/autonomous/self-update/<task>`
 * without fetching anything from the clone: the commit is rebuilt from the reviewed patch under a
 * temporary index (`read-tree` the base, `apply --cached`, `write-tree`, `commit-tree`), so only
 * objects that the patch itself describes enter the repository. The ref is written only if the
 * rebuilt tree and commit equal the clone's, the digest still matches, and the repository is as it
 * was when the attempt started (HEAD, branch, index, remotes, status and every ref). The work tree
 * and the real index are never written; the ref is created, never moved.
 */
export async function importReviewed(
  before: CheckoutState,
  change: ReviewedChange,
): Promise<{ ref: string; commitSha: string; alreadyImported: boolean }> {
  const ref = selfUpdateRef(change.taskId)
  requireReviewed(change.digest, await patchDigest(change.baseSha, change.patch))
  if (change.baseSha !== before.head) refuse('the change is not based on the recorded HEAD', {})
  const scratch = await mkdtemp(join(tmpdir(), 'popagent-import-'))
  try {
    const at: GitOptions = {
      cwd: scratch,
      env: { GIT_DIR: before.gitDir, GIT_INDEX_FILE: join(scratch, 'index') },
    }
    await hostGitText(['read-tree', change.baseSha], at)
    await hostGitText(['apply', '--cached', '--whitespace=nowarn', '-p1', '-'], {
      ...at,
      input: change.patch,
    })
    const treeSha = (await hostGitText(['write-tree'], at)).trim()
    if (treeSha !== change.treeSha)
      refuse('the rebuilt tree differs', { treeSha, expected: change.treeSha })
    const commitSha = (
      await hostGitText(['commit-tree', treeSha, '-p', change.baseSha, '-F', '-'], {
        ...at,
        env: { ...at.env, ...commitEnvironment(change.createdAt) },
        input: change.message,
      })
    ).trim()
    if (commitSha !== change.commitSha) {
      refuse('the rebuilt commit differs from the reviewed one', {
        commitSha,
        expected: change.commitSha,
      })
    }
    const existing = before.refs.get(ref)
    const now = await readCheckout(before.repo)
    if (now.refs.get(ref) === commitSha && existing === undefined) {
      // An earlier try wrote this very ref and then stopped: the work is done.
      return { ref, commitSha, alreadyImported: true }
    }
    requireUnchanged(before, now)
    await hostGitText(['update-ref', '--no-deref', ref, commitSha, ''], {
      cwd: scratch,
      env: { GIT_DIR: before.gitDir },
    })
    const after = await readCheckout(before.repo)
    const added = [...after.refs.keys()].filter((name) => !before.refs.has(name))
    if (added.length !== 1 || added[0] !== ref || after.refs.size !== before.refs.size + 1) {
      refuse('the repository changed while the ref was written', { added })
    }
    requireUnchanged(before, after, ref)
    return { ref, commitSha, alreadyImported: false }
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** The owner's repository must be exactly as recorded when the attempt began (apart from `ignore`). */
function requireUnchanged(before: CheckoutState, now: CheckoutState, ignore?: string): void {
  const same = (a: unknown, b: unknown, what: string) => {
    if (a !== b) refuse(`${what} changed since the attempt began`, { what })
  }
  same(before.head, now.head, 'HEAD')
  same(before.branch, now.branch, 'the checked-out branch')
  same(before.indexDigest, now.indexDigest, 'the index')
  same(before.remoteDigest, now.remoteDigest, 'the remotes')
  same(now.changes.length, 0, 'the work tree')
  for (const [name, sha] of before.refs) same(sha, now.refs.get(name), `ref ${name}`)
  for (const name of now.refs.keys()) {
    if (name !== ignore && !before.refs.has(name)) refuse(`ref ${name} appeared`, { ref: name })
  }
}

function refuse(why: string, data: Record<string, unknown>): never {
  throw new ImportRefused(data, { message: `the reviewed change was not imported: ${why}` })
}
