import { and, eq, notInArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { tasks } from '../../../db/schema/index.ts'
import type { TaskRow } from '../../../runtime/tasks/index.ts'

/**
 * Claims of this runner that it is not executing, made in the last `withinMs`: the claim (or the
 * combined completion and claim) committed but its reply was lost. Only this runner claims under
 * its runner id, so taking them over renews their lease and lets them run now, as their claim
 * intended, rather than waiting a lease for recovery (which would count an attempt that never
 * ran). The window keeps out claims of an earlier process that had the same runner id (a host
 * restarted with the same name and pid): those follow the recovery rules. The caller must have
 * no claim of its own in flight.
 */
export async function adoptClaims(
  db: Db,
  runnerId: string,
  held: string[],
  withinMs: number,
): Promise<TaskRow[]> {
  return db
    .update(tasks)
    .set({ heartbeatAt: sql`now()` })
    .where(
      and(
        eq(tasks.claimedBy, runnerId),
        eq(tasks.state, 'running'),
        sql`${tasks.claimedAt} >= now() - make_interval(secs => ${Math.max(0, withinMs) / 1000})`,
        held.length > 0 ? notInArray(tasks.id, held) : undefined,
      ),
    )
    .returning()
}
