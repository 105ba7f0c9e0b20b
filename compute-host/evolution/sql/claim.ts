import { inArray, lte, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { evolutionSignals } from '../../../db/schema/index.ts'
import type { ClaimedSignal } from '../types.ts'

/**
 * Claims up to `limit` due pending signals for `workerId` under a lease, counting the attempt in
 * the same statement. `FOR UPDATE SKIP LOCKED`: two workers (two hosts) get disjoint batches.
 */
export async function claim(
  db: Db,
  workerId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedSignal[]> {
  const due = db
    .select({ id: evolutionSignals.id })
    .from(evolutionSignals)
    .where(
      sql`${evolutionSignals.status} = 'pending' and ${lte(evolutionSignals.nextAttemptAt, sql`now()`)}`,
    )
    .orderBy(evolutionSignals.nextAttemptAt, evolutionSignals.id)
    .limit(limit)
    .for('update', { skipLocked: true })
  return db
    .update(evolutionSignals)
    .set({
      status: 'claimed',
      claimedBy: workerId,
      attempts: sql`${evolutionSignals.attempts} + 1`,
      leaseExpiresAt: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
      updatedAt: sql`now()`,
    })
    .where(inArray(evolutionSignals.id, due))
    .returning()
}
