import { sql } from '../../../../db/drizzle-orm.ts'
import type { Db } from '../../../../db/index.ts'
import { channelOutbox } from '../../../../db/schema/index.ts'
import type { ChannelButton, ChannelTarget } from '../../types.ts'

/**
 * Stores an answer's chunks in one statement, numbered from 1: either all of them are queued or
 * none is, so a delivery is never half-stored. Buttons go on the last chunk. A streamed answer
 * (answer-stream.ts) gives `editOf`: its first chunk then replaces the text of that message
 * rather than being sent as a new one, and nothing is due before `delayMs` (the chat's pace
 * since the stream's last edit).
 */
export async function enqueueChunks(
  db: Db,
  delivery: {
    channelId: string
    bindingId: string | null
    target: ChannelTarget
    deliveryId: string
    chunks: string[]
    paceMs: number
    /** At most `max` chunks of this chat sent per rolling `ms` (pacing.ts). */
    window?: { max: number; ms: number } | undefined
    buttons?: ChannelButton[]
    editOf?: string | undefined
    /** What the message `editOf` shows now: a first chunk equal to it needs no edit. */
    shown?: string | undefined
    delayMs?: number | undefined
  },
): Promise<number> {
  const { channelId, bindingId, target, deliveryId, chunks, paceMs } = delivery
  if (chunks.length === 0) return 0
  await db.insert(channelOutbox).values(
    chunks.map((body, i) => ({
      channelId,
      bindingId,
      chatKey: chatKeyOf(channelId, target),
      target,
      deliveryId,
      seq: i + 1,
      total: chunks.length,
      body,
      buttons: i === chunks.length - 1 ? (delivery.buttons ?? null) : null,
      state: 'queued' as const,
      paceMs,
      windowMax: delivery.window?.max ?? null,
      windowMs: delivery.window?.ms ?? null,
      editOf: i === 0 ? (delivery.editOf ?? null) : null,
      // The streamed message shows this text already: kept as sent, with no call to make.
      ...(i === 0 &&
        delivery.editOf &&
        delivery.shown === body && {
          state: 'sent' as const,
          // Sent by the stream's call, once.
          attempts: 1,
          sentAt: sql`now()`,
          externalId: delivery.editOf,
        }),
      ...(delivery.delayMs && {
        nextAttemptAt: sql`now() + make_interval(secs => ${delivery.delayMs} / 1000.0)`,
      }),
    })),
  )
  return chunks.length
}

/** One chat's queue: its chunks go out in order, one at a time, paced. */
export const chatKeyOf = (channelId: string, target: ChannelTarget) =>
  `${channelId}/${encodeURIComponent(target.conversation)}/${encodeURIComponent(target.thread)}`
