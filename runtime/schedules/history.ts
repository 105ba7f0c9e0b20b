import { desc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { scheduleFires, schedules } from '../../db/schema/index.ts'
import type { ScheduleOccurrence } from '../contracts/schedules.ts'
import { ScheduleNotFound } from './errors.ts'

/**
 * A schedule's occurrences as the scheduler decided them, newest first: each fired one with its
 * task and each skipped one with the reason (docs/schedules.md, "Catch-up after downtime"). Runs
 * the owner asked for are no occurrences and are not here. An unknown schedule is a 404, not an
 * empty history.
 */
export async function history(db: Db, id: string, limit: number): Promise<ScheduleOccurrence[]> {
  const [schedule] = await db
    .select({ id: schedules.id })
    .from(schedules)
    .where(eq(schedules.id, id))
  if (!schedule) throw new ScheduleNotFound({ id })
  const rows = await db
    .select()
    .from(scheduleFires)
    .where(eq(scheduleFires.scheduleId, id))
    .orderBy(desc(scheduleFires.occurrenceAt))
    .limit(limit)
  return rows.map((r) => ({
    occurrenceAt: r.occurrenceAt.toISOString(),
    outcome: r.outcome,
    reason: r.reason,
    taskId: r.taskId,
    recordedAt: r.firedAt.toISOString(),
  }))
}
