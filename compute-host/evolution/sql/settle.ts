import { and, eq, inArray, sql } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { evolutionSignals } from '../../../db/schema/index.ts'
import type { Tx } from '../../../runtime/evolution/policy.ts'

/** The worker no longer holds every signal of its batch (its lease ran out and another took it). */
export class LostClaim extends Error {}

/**
 * Locks the batch's signals and checks that `workerId` still holds each one; called first in the
 * transaction that applies a decision, so a stale worker changes nothing.
 */
export async function fenceClaims(tx: Tx, ids: string[], workerId: string): Promise<void> {
  const held = await tx
    .select({ id: evolutionSignals.id })
    .from(evolutionSignals)
    .where(
      and(
        inArray(evolutionSignals.id, ids),
        eq(evolutionSignals.status, 'claimed'),
        eq(evolutionSignals.claimedBy, workerId),
      ),
    )
    .for('update')
  if (held.length !== ids.length) throw new LostClaim(`${ids.length - held.length} claims lost`)
}

/** Ends the batch's claims as `processed` or `ignored`, with what came of them. */
export async function finishClaims(
  tx: Tx | Db,
  ids: string[],
  status: 'processed' | 'ignored',
  outcome: string,
): Promise<void> {
  await tx
    .update(evolutionSignals)
    .set({
      status,
      outcome: outcome.slice(0, 500),
      claimedBy: null,
      leaseExpiresAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(inArray(evolutionSignals.id, ids), eq(evolutionSignals.status, 'claimed')))
}
