import { and, eq, isNull } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'
import { decide, type Backoff, type ErrorClass } from '../failure-policy.ts'
import { afterInterruption } from '../interruption.ts'
import { enqueueRemediation, isPermanentFailure } from './enqueue-remediation.ts'
import { liveClaimFence } from './fence.ts'

/** How an attempt's executor settled, as it is written. */
export type Settled =
  { ok: true; result: string } | { ok: false; errorClass: ErrorClass; message: string }

/**
 * Ends an attempt after its executor settled. A task marked `cancelling` becomes `cancelled`
 * whatever the executor did; otherwise success completes it and failure goes through the
 * failure policy (`interrupted` by shutdown follows the recovery rule instead). A permanent
 * failure enqueues its one remediation task in the same transaction. Null when the claim was
 * lost (nothing is written then).
 *
 * Idempotent: when an earlier write of this same end committed but its reply was lost (the
 * connection broke after the commit), the claim is gone, yet the row shows this attempt's end;
 * that row is answered, so the attempt is announced once and not reported as a lost claim.
 */
export async function finish(
  db: Db,
  task: TaskRow,
  settled: Settled,
  backoff: Backoff,
): Promise<TaskRow | null> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(tasks).where(liveClaimFence(task)).for('update')
    if (!current) return endedByThisAttempt(tx, task, settled)
    const now = new Date()
    const common = { updatedAt: now, claimedBy: null, heartbeatAt: null }
    let values: Partial<TaskRow>
    if (current.state === 'cancelling') {
      values = { state: 'cancelled', lastErrorClass: 'cancelled', finishedAt: now }
    } else if (settled.ok) {
      values = { state: 'completed', result: settled.result, finishedAt: now, lastErrorClass: null }
    } else {
      const decision =
        settled.errorClass === 'interrupted'
          ? afterInterruption(current)
          : decide(current, settled.errorClass, now, backoff)
      values = {
        state: decision.state,
        lastErrorClass: settled.errorClass,
        lastError: settled.message,
        ...(decision.state === 'queued'
          ? { nextAttemptAt: decision.nextAttemptAt, maxAttempts: decision.maxAttempts }
          : { finishedAt: now }),
      }
    }
    const [row] = await tx
      .update(tasks)
      .set({ ...values, ...common })
      .where(eq(tasks.id, task.id))
      .returning()
    if (row && isPermanentFailure(row)) await enqueueRemediation(tx, row)
    return row ?? null
  })
}

/**
 * The row, when it shows that this attempt's own end was already written: the same attempt number
 * and turn id (a later attempt would have new ones, and every claim draws a new turn id), no
 * claim, and the outcome this attempt reports (its result, or its error class and message), or
 * `cancelled` when the attempt was ended after a cancellation. Recovery writes its own error class
 * and message (`interrupted`, `stale`), so a claim recovered elsewhere does not match.
 */
async function endedByThisAttempt(db: Db, task: TaskRow, settled: Settled) {
  const [row] = await db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.id, task.id),
        eq(tasks.attemptCount, task.attemptCount),
        eq(tasks.turnId, task.turnId ?? ''),
        isNull(tasks.claimedBy),
      ),
    )
  if (!row) return null
  if (row.state === 'cancelled' && row.lastErrorClass === 'cancelled') return row
  const ours = settled.ok
    ? row.state === 'completed' && row.result === settled.result
    : row.lastErrorClass === settled.errorClass && row.lastError === settled.message
  return ours ? row : null
}
