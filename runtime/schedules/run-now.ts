import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { schedules } from '../../db/schema/index.ts'
import type { Task } from '../contracts/tasks.ts'
import * as Settings from '../settings/index.ts'
import { enqueue, toTask } from '../tasks/index.ts'
import { ScheduleNotFound, SelfUpdateOff } from './errors.ts'
import { scheduledTask } from './scheduled-task.ts'

/**
 * Queues the schedule's task now, as an occurrence would (scheduled-task.ts), whether or not the
 * schedule is enabled; it is no occurrence, so `lastFiredAt`, `nextRunAt` and the fire records
 * stay as they are. A self-update schedule meets the scheduler's gates: self-update must be on,
 * and a second active self-update task is a 409 AUTONOMOUS_TASK_ACTIVE (the one-active index).
 * The row is locked so the task is made from one version of the schedule, never a half-applied
 * edit.
 */
export async function runNow(db: Db, id: string): Promise<Task> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(schedules).where(eq(schedules.id, id)).for('update')
    if (!row) throw new ScheduleNotFound({ id })
    if (row.source === 'self-update' && !(await Settings.autonomy.get(tx)).selfUpdateEnabled) {
      throw new SelfUpdateOff({ id })
    }
    return toTask(await enqueue(tx, scheduledTask(row, null)))
  })
}
