import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import type { Db } from '../../db/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import { warmRepoBrief } from '../repo-brief/brief.ts'
import type { Logger } from '../log.ts'
import { repositoryPath } from './preflight.ts'

/**
 * Readies the repository brief of the workspace the owner's next turn most likely asks about
 * (the most recently active session's, else the default workspace) once the host can run turns.
 * A first brief of a repository is the slowest part of a first turn: on the bench's 2,400-file
 * repository, about 0.7 s cold on a quiet machine (loading TypeScript's parser, the inventory,
 * parsing the files the question matched) against about 10 ms once the tree is known.
 *
 * Best effort: a missing workspace or directory, or any failure, is logged and changes nothing.
 * A turn asked meanwhile shares the inventory being taken (repo-brief/brief.ts).
 */
export async function warmLikelyBrief(deps: {
  db: Db
  workspaceRoot: string
  log: Logger
}): Promise<void> {
  const started = performance.now()
  let workspaceId = DEFAULT_WORKSPACE_ID
  try {
    workspaceId = (await Sessions.lastActiveWorkspace(deps.db)) ?? DEFAULT_WORKSPACE_ID
    const workspace = await Workspaces.get(deps.db, workspaceId)
    await warmRepoBrief(await repositoryPath(deps.workspaceRoot, workspace.path))
    deps.log.info('repository brief readied', {
      workspaceId,
      ms: Math.round(performance.now() - started),
    })
  } catch (error) {
    deps.log.info('repository brief not readied at start', {
      workspaceId,
      error: errorMessage(error),
    })
  }
}
