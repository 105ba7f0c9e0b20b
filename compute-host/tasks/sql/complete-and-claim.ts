import { sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { rawRowMapper, rowsOf } from '../../../db/rows.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'
import { claimStatement } from './claim.ts'
import { completeMany, completeStatement, type Completion } from './complete-many.ts'

const taskRow = rawRowMapper(tasks)

/**
 * `completeMany` and `claim` in one statement and one round trip: the slots the completed
 * attempts free are filled in the same statement that frees them. The two parts touch disjoint
 * rows (running or cancelling ones, queued ones) and are fenced and locked exactly as alone.
 */
export async function completeAndClaim(
  db: Db,
  done: ReadonlyArray<Completion>,
  runnerId: string,
  limit: number,
): Promise<{ completed: TaskRow[]; claimed: TaskRow[] }> {
  if (limit <= 0) return { completed: await completeMany(db, done), claimed: [] }
  const result = await db.execute(sql`
    with completed as (${completeStatement(db, done).getSQL()}),
    claimed as (${claimStatement(db, runnerId, limit).getSQL()})
    select true as "completed?", * from completed
    union all
    select false, * from claimed`)
  const completed: TaskRow[] = []
  const claimed: TaskRow[] = []
  for (const raw of rowsOf<Record<string, unknown>>(result))
    (raw['completed?'] ? completed : claimed).push(taskRow(raw))
  return { completed, claimed }
}
