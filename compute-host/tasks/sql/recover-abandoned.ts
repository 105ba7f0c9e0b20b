import { and, eq, inArray, notInArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'
import { afterInterruption } from '../interruption.ts'
import { enqueueRemediation, isPermanentFailure } from './enqueue-remediation.ts'

/**
 * Restart recovery of abandoned claims: running or cancelling rows whose lease has expired and
 * that this runner is not executing. Cancelling work is finalised as cancelled; work claimed
 * longer ago than `staleAfterMs` fails (too old to replay); the rest is queued again at its
 * original due time (`afterInterruption`). Prompt, model, session, schedule and workspace stay.
 */
export async function recoverAbandoned(
  db: Db,
  options: { leaseMs: number; staleAfterMs: number; exclude: string[] },
): Promise<TaskRow[]> {
  return db.transaction(async (tx) => {
    const abandoned = await tx
      .select()
      .from(tasks)
      .where(
        and(
          inArray(tasks.state, ['running', 'cancelling']),
          sql`(${tasks.heartbeatAt} is null or ${tasks.heartbeatAt} < now() - make_interval(secs => ${options.leaseMs / 1000}))`,
          options.exclude.length > 0 ? notInArray(tasks.id, options.exclude) : undefined,
        ),
      )
      .for('update', { skipLocked: true })
    const recovered: TaskRow[] = []
    const now = new Date()
    for (const task of abandoned) {
      const claimedAt = task.claimedAt?.getTime() ?? 0
      const values: Partial<TaskRow> =
        task.state === 'cancelling'
          ? { state: 'cancelled', lastErrorClass: 'cancelled', finishedAt: now }
          : now.getTime() - claimedAt > options.staleAfterMs
            ? {
                state: 'failed',
                lastErrorClass: 'stale',
                lastError: `interrupted ${Math.round((now.getTime() - claimedAt) / 60_000)} min into its attempt, too long ago to replay`,
                finishedAt: now,
              }
            : {
                ...afterInterruption(task),
                lastErrorClass: 'interrupted',
                lastError: `the runner ${task.claimedBy ?? ''} stopped during attempt ${task.attemptCount}`,
              }
      const [row] = await tx
        .update(tasks)
        .set({ ...values, claimedBy: null, heartbeatAt: null, updatedAt: now })
        .where(eq(tasks.id, task.id))
        .returning()
      if (row && isPermanentFailure(row)) await enqueueRemediation(tx, row)
      if (row) recovered.push(row)
    }
    return recovered
  })
}
