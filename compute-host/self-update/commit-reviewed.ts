import { requireReviewed } from '../../runtime/self-update/review-gate.ts'
import { commitEnvironment } from './commit-identity.ts'
import { inClone, type SelfUpdateClone } from './fresh-clone.ts'
import { hostGitText } from './host-git.ts'
import { currentDigest } from './inspect-change.ts'

/**
 * Commits the reviewed change on the clone's self-update branch, after checking that what the
 * clone holds now is still, byte for byte, what the reviewer approved. The commit is built from
 * the tree with plumbing (no hooks, no signing, no message clean-up), so the import can rebuild
 * the identical commit from the patch alone.
 */
export async function commitReviewed(
  clone: SelfUpdateClone,
  reviewed: { digest: string; treeSha: string; message: string; createdAt: Date },
): Promise<string> {
  const now = await currentDigest(clone)
  requireReviewed(reviewed.digest, now.digest)
  requireReviewed(reviewed.treeSha, now.treeSha)
  const at = inClone(clone)
  const commit = (
    await hostGitText(['commit-tree', now.treeSha, '-p', clone.baseSha, '-F', '-'], {
      ...at,
      env: { ...at.env, ...commitEnvironment(reviewed.createdAt) },
      input: reviewed.message,
    })
  ).trim()
  await hostGitText(['update-ref', `refs/heads/${clone.branch}`, commit, clone.baseSha], at)
  return commit
}
