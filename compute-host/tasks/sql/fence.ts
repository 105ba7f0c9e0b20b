import { and, eq, inArray } from '../../../db/drizzle-orm.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'

/**
 * Every write that ends an attempt is fenced by the claim (runner id and attempt number), so a
 * runner that lost its claim (its lease expired and the task was recovered elsewhere) can never
 * overwrite the newer state.
 */
export const claimFence = (task: TaskRow) =>
  and(
    eq(tasks.id, task.id),
    eq(tasks.claimedBy, task.claimedBy!),
    eq(tasks.attemptCount, task.attemptCount),
  )

/** The claim, on a row still being worked on. */
export const liveClaimFence = (task: TaskRow) =>
  and(claimFence(task), inArray(tasks.state, ['running', 'cancelling']))
