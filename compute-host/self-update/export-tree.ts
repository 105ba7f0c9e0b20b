import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { inClone, type SelfUpdateClone } from './fresh-clone.ts'
import { hostGit, neutralFilters } from './host-git.ts'

/**
 * Writes exactly the inspected tree into a fresh directory for verify, through a temporary index
 * (`read-tree` + `checkout-index`): files the change left out of the patch (ignored ones, say)
 * are not there, so a check passes or fails on what will be reviewed and imported, nothing else.
 * The caller removes the directory.
 */
export async function exportTree(
  clone: SelfUpdateClone,
  treeSha: string,
  parent: string,
): Promise<string> {
  const scratch = await mkdtemp(join(parent, 'verify-'))
  const tree = join(scratch, 'tree')
  await mkdir(tree)
  const base = inClone(clone)
  const at = {
    ...base,
    env: { ...base.env, GIT_INDEX_FILE: join(scratch, 'index') },
    config: await neutralFilters(base),
  }
  try {
    await hostGit(['read-tree', treeSha], at)
    await hostGit(['checkout-index', '--all', '--force', `--prefix=${tree}/`], at)
    await rm(join(scratch, 'index'), { force: true })
    return tree
  } catch (error) {
    await rm(scratch, { recursive: true, force: true })
    throw error
  }
}
