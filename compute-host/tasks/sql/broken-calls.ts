import { and, inArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { taskActivity } from '../../../db/schema/index.ts'

/** The transcript record kind a task attempt writes for each call the loop breaker took out. */
export const BROKEN_CALL_RECORD = 'loop-broken'

/**
 * The calls the loop breaker took out of these tasks' attempts (a remediation's parent, and the
 * remediation's own earlier attempts), by call digest with why: a remediation refuses them from
 * its first attempt (issue 41, section 1). Read from the transcript, where the attempt recorded
 * each one as it happened; a digest, never the arguments, is kept.
 */
export async function brokenCallsOf(db: Db, taskIds: string[]): Promise<Map<string, string>> {
  const rows = await db
    .select({ record: taskActivity.record })
    .from(taskActivity)
    .where(
      and(
        inArray(taskActivity.taskId, taskIds),
        sql`${taskActivity.record}->>'kind' = ${BROKEN_CALL_RECORD}`,
      ),
    )
    .orderBy(taskActivity.id)
  const calls = new Map<string, string>()
  for (const { record } of rows) {
    const { digest, tool, why } = record as { digest?: unknown; tool?: unknown; why?: unknown }
    if (typeof digest !== 'string' || calls.has(digest)) continue
    calls.set(digest, `${String(tool)}: ${String(why)}`)
  }
  return calls
}
