import { and, eq, lt, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { evolutionSignals } from '../../../db/schema/index.ts'
import { MAX_ATTEMPTS } from '../backoff.ts'

/**
 * Claims whose lease ran out (a worker that died or hung mid-reflection) go back to `pending`,
 * due now, or to `dead` once they have used their attempts. A worker that died changed nothing:
 * its mutation and its signals' completion were one transaction that never committed.
 */
export async function recoverAbandoned(db: Db): Promise<number> {
  const rows = await db
    .update(evolutionSignals)
    .set({
      status: sql`case when ${evolutionSignals.attempts} >= ${MAX_ATTEMPTS} then 'dead' else 'pending' end`,
      lastError: sql`coalesce(${evolutionSignals.lastError}, 'the worker holding it stopped')`,
      claimedBy: null,
      leaseExpiresAt: null,
      nextAttemptAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(eq(evolutionSignals.status, 'claimed'), lt(evolutionSignals.leaseExpiresAt, sql`now()`)),
    )
    .returning({ id: evolutionSignals.id })
  return rows.length
}
