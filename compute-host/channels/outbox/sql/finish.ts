import { and, eq, inArray, sql } from '../../../../db/drizzle-orm.ts'
import type { Db } from '../../../../db/index.ts'
import { channelBindings, channelOutbox } from '../../../../db/schema/index.ts'

/**
 * The end of one send attempt. Each statement touches only the claimed row (and, for a blocked
 * recipient, its chat's queue), and only while this attempt still holds it (`attempts` is the
 * fence: a sender whose lease ran out and whose row was taken again writes nothing).
 */
const held = (id: number, attempts: number) =>
  and(
    eq(channelOutbox.id, id),
    eq(channelOutbox.attempts, attempts),
    eq(channelOutbox.state, 'sending'),
  )

export async function markSent(db: Db, id: number, attempts: number, externalId?: string) {
  await db
    .update(channelOutbox)
    .set({ state: 'sent', sentAt: sql`now()`, leaseUntil: null, externalId: externalId ?? null })
    .where(held(id, attempts))
}

/** Back in the queue, due after `delayMs`; the chunks after it wait, since it is still first. */
export async function markRetry(
  db: Db,
  id: number,
  attempts: number,
  delayMs: number,
  error: string,
) {
  await db
    .update(channelOutbox)
    .set({
      state: 'queued',
      leaseUntil: null,
      lastError: error,
      nextAttemptAt: sql`now() + make_interval(secs => ${delayMs} / 1000.0)`,
    })
    .where(held(id, attempts))
}

/** This chunk will not be sent; the chunks after it still are. */
export async function markFailed(db: Db, id: number, attempts: number, error: string) {
  await db
    .update(channelOutbox)
    .set({ state: 'failed', leaseUntil: null, lastError: error })
    .where(held(id, attempts))
}

/**
 * The recipient refused the bot: this chunk fails, the chat's queued chunks are cancelled, and
 * the binding is blocked until its next inbound message, in one transaction.
 */
export async function markBlocked(
  db: Db,
  row: { id: number; attempts: number; chatKey: string; bindingId: string | null },
  error: string,
) {
  await db.transaction(async (tx) => {
    await tx
      .update(channelOutbox)
      .set({ state: 'failed', leaseUntil: null, lastError: error })
      .where(held(row.id, row.attempts))
    await tx
      .update(channelOutbox)
      .set({ state: 'cancelled', lastError: 'the recipient blocked the bot' })
      .where(and(eq(channelOutbox.chatKey, row.chatKey), eq(channelOutbox.state, 'queued')))
    if (row.bindingId) {
      await tx
        .update(channelBindings)
        .set({ blockedAt: sql`now()` })
        .where(eq(channelBindings.id, row.bindingId))
    }
  })
}

/** Cancels a binding's chunks not yet sent (`/stop`, the cancel route); answers how many. */
export async function cancelQueued(db: Db, bindingId: string): Promise<number> {
  const rows = await db
    .update(channelOutbox)
    .set({ state: 'cancelled', lastError: 'cancelled by the owner' })
    .where(and(eq(channelOutbox.bindingId, bindingId), inArray(channelOutbox.state, ['queued'])))
    .returning({ id: channelOutbox.id })
  return rows.length
}
