import { and, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { taskActivity } from '../../db/schema/index.ts'
import { BROKEN_CALL_RECORD } from './sql/broken-calls.ts'

/** How many iteration records each task keeps; older ones are dropped as new ones arrive. */
export const TRANSCRIPT_LIMIT = 256

/** Redacts every string inside a record (keys included), so no encoding of a secret survives. */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value)
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact))
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]),
    )
  }
  return value
}

/**
 * Appends one record (redacted before it is stored) and trims the task to the newest 256. The
 * calls the loop breaker took out (`loop-broken`, a digest and why) are kept whatever their age:
 * the task's remediation refuses them (sql/broken-calls.ts). A run makes few of them: each takes
 * `loopRepeatLimit` calls of the run's tool-call budget.
 */
export async function appendActivity(
  db: Db,
  entry: { taskId: string; attempt: number; record: Record<string, unknown> },
  redact: (text: string) => string,
): Promise<void> {
  const record = redactDeep(entry.record, redact) as Record<string, unknown>
  await db.insert(taskActivity).values({ taskId: entry.taskId, attempt: entry.attempt, record })
  const oldestKept = db
    .select({ id: taskActivity.id })
    .from(taskActivity)
    .where(eq(taskActivity.taskId, entry.taskId))
    .orderBy(sql`${taskActivity.id} desc`)
    .offset(TRANSCRIPT_LIMIT - 1)
    .limit(1)
  await db
    .delete(taskActivity)
    .where(
      and(
        eq(taskActivity.taskId, entry.taskId),
        sql`${taskActivity.id} < (${oldestKept})`,
        sql`${taskActivity.record}->>'kind' is distinct from ${BROKEN_CALL_RECORD}`,
      ),
    )
}
