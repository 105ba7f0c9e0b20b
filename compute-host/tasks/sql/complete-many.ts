import { and, inArray, or, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'
import { claimFence } from './fence.ts'

export type Completion = { task: TaskRow; result: string }

/**
 * Ends many successful attempts in one statement (the runner batches completions that arrive
 * together). Each row is fenced by its own claim; a row marked `cancelling` meanwhile becomes
 * `cancelled` instead, as in `finish`. Rows whose claim was lost are simply not returned.
 */
export async function completeMany(db: Db, done: ReadonlyArray<Completion>): Promise<TaskRow[]> {
  return completeStatement(db, done)
}

/** The completion as a statement, for `completeAndClaim` to embed. */
export function completeStatement(db: Db, done: ReadonlyArray<Completion>) {
  const cancelling = sql`${tasks.state} = 'cancelling'`
  const results = sql.join(
    done.map(({ task, result }) => sql`when ${task.id} then ${result}`),
    sql` `,
  )
  return db
    .update(tasks)
    .set({
      state: sql`case when ${cancelling} then 'cancelled' else 'completed' end`,
      result: sql`case when ${cancelling} then ${tasks.result} else (case ${tasks.id} ${results} end) end`,
      lastErrorClass: sql`case when ${cancelling} then 'cancelled' else null end`,
      finishedAt: sql`now()`,
      updatedAt: sql`now()`,
      claimedBy: null,
      heartbeatAt: null,
    })
    .where(
      and(
        inArray(tasks.state, ['running', 'cancelling']),
        or(...done.map(({ task }) => claimFence(task))),
      ),
    )
    .returning()
}
