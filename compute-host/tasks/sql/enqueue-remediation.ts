import { and, eq } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../../runtime/pg-errors.ts'
import { enqueue, type TaskRow } from '../../../runtime/tasks/index.ts'
import { remediationPrompt } from '../remediation-prompt.ts'
import { transcriptEvidence } from './transcript-evidence.ts'

/**
 * A row that ended without success for good: it gets a remediation, unless its tree's budget
 * ended (a remediation shares that budget, so it could not do anything).
 */
export function isPermanentFailure(row: TaskRow): boolean {
  if (row.lastErrorClass === 'budget-exhausted') return false
  // A hook denied the work: a remediation would only be denied again (a user retry is a new task).
  if (row.lastErrorClass === 'hook-denied') return false
  return row.state === 'failed' || row.state === 'dead-letter'
}

/**
 * One remediation per permanently failed task, never for a remediation itself. The unique
 * partial index on `parent_task_id` makes a second attempt (another failure of the same parent,
 * or another host) a no-op.
 */
export async function enqueueRemediation(db: Db, parent: TaskRow): Promise<void> {
  if (parent.kind === 'remediation') return
  const [existing] = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.parentTaskId, parent.id), eq(tasks.kind, 'remediation')))
  if (existing) return
  await db
    .transaction(async (savepoint) => {
      await enqueue(savepoint, {
        source: parent.source,
        kind: 'remediation',
        workspaceId: parent.workspaceId,
        parentTaskId: parent.id,
        title: `Remediate: ${parent.title}`.slice(0, 200),
        prompt: remediationPrompt(parent, await transcriptEvidence(savepoint, parent.id)),
        model: null,
        // One budget for the tree: the remediation starts from what its parent used.
        budget: parent.budget,
        budgetUsed: parent.budgetUsed,
        // A starting ceiling only: a remediation retries every failure, moving it up one by one.
        maxAttempts: 1,
      })
    })
    .catch((error: unknown) => {
      // Lost a race with another host to the unique index: that host's remediation stands.
      if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error
    })
}
