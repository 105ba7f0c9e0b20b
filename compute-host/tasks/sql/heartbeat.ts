import { and, eq, inArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'

/** Renews the lease of this runner's attempts; answers their current states. */
export async function heartbeat(db: Db, runnerId: string, ids: string[]) {
  if (ids.length === 0) return []
  return db
    .update(tasks)
    .set({ heartbeatAt: sql`now()` })
    .where(and(inArray(tasks.id, ids), eq(tasks.claimedBy, runnerId)))
    .returning({ id: tasks.id, state: tasks.state, attemptCount: tasks.attemptCount })
}
