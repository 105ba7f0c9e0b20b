import { and, eq, inArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { evolutionSignals } from '../../../db/schema/index.ts'
import { BACKOFF_BASE_S, BACKOFF_CAP_S, MAX_ATTEMPTS } from '../backoff.ts'

/**
 * A batch whose reflection or apply failed: each signal waits its backoff (30 s doubling to
 * 30 min) and is tried again, or is `dead` after its last attempt. Only claims this worker still
 * holds are touched.
 */
export async function releaseFailed(
  db: Db,
  ids: string[],
  workerId: string,
  error: string,
): Promise<void> {
  await db
    .update(evolutionSignals)
    .set({
      status: sql`case when ${evolutionSignals.attempts} >= ${MAX_ATTEMPTS} then 'dead' else 'pending' end`,
      lastError: error.slice(0, 500),
      claimedBy: null,
      leaseExpiresAt: null,
      nextAttemptAt: sql`now() + make_interval(secs => least(${BACKOFF_CAP_S}, ${BACKOFF_BASE_S} * power(2, greatest(${evolutionSignals.attempts} - 1, 0))))`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        inArray(evolutionSignals.id, ids),
        eq(evolutionSignals.status, 'claimed'),
        eq(evolutionSignals.claimedBy, workerId),
      ),
    )
}
