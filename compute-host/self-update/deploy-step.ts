import type { Db } from '../../db/index.ts'
import { recordPhase } from '../../runtime/self-update/phase-store.ts'
import * as Settings from '../../runtime/settings/index.ts'

/**
 * The optional deploy step of self-update (issue 40), taken only while `deploymentEnabled` is on
 * in the autonomy settings. Deployment may only reuse immutable CI verification of the exact
 * 40-character revision, with a UTC timestamp, as its evidence. A self-update commit is imported
 * as a local ref and never pushed, so no CI has verified it and that evidence cannot exist: the
 * step refuses, every time, and says why. The refusal is a `deploy` phase of the attempt (failed,
 * with the reason, on the task page and in `GET /api/tasks/:id/workflow`) and part of the task's
 * result, never a silent skip. With deployment off the step is not taken and no row is written.
 */
export async function deployStep(
  db: Db,
  attempt: { taskId: string; attempt: number },
  outcome: { commitSha: string | null; ref: string | null },
): Promise<string | undefined> {
  if (!(await Settings.autonomy.get(db)).deploymentEnabled) return undefined
  const ids = { taskId: attempt.taskId, attempt: attempt.attempt, phase: 'deploy' as const }
  if (!outcome.commitSha) {
    await recordPhase(db, { ...ids, state: 'skipped' })
    return 'nothing to deploy: no change was committed'
  }
  const reason =
    `deploy refused: ${outcome.commitSha} exists only as the local ref ${outcome.ref}; ` +
    'deployment needs immutable CI verification of that exact 40-character revision with a UTC ' +
    'timestamp, and no CI has verified a commit that was never pushed, so nothing was ' +
    'published or deployed'
  await recordPhase(db, { ...ids, state: 'failed', error: reason })
  return reason
}
