import type { Db } from '../../../db/index.ts'
import { errorMessage } from '../../../runtime/error-message.ts'
import { retryDelayMs } from '../../../runtime/net/retry-after.ts'
import type { Logger } from '../../log.ts'
import type { ChannelDirectory } from '../directory.ts'
import { markChannel } from '../settings.ts'
import {
  PermanentSendError,
  RateLimitedError,
  TransientSendError,
  type ChannelAdapter,
  type OutboundMessage,
  type SendResult,
} from '../types.ts'
import { claimDue, type OutboxRow } from './sql/claim.ts'
import { markBlocked, markFailed, markRetry, markSent } from './sql/finish.ts'
import { msUntilDue } from './sql/next-due.ts'

/**
 * The outbox engine: sends the chunks the channel service queued, in order per chat, paced, and
 * survives anything between two chunks. Shaped like the task runner (compute-host/tasks/): a
 * claim with SKIP LOCKED (several hosts may run it on one database), one SQL operation per
 * file in sql/, and a lease, so a host that dies mid-send leaves its chunk to be taken again.
 *
 * What a send can end in:
 * - sent: the next chunk of that chat becomes claimable once the chat's pace has passed;
 * - 429: the chunk waits as long as the service asked (runtime/net/retry-after.ts), and the
 *   chunks after it wait behind it: nothing is dropped and nothing is sent twice or out of order;
 * - 5xx or no answer: retried with backoff, up to MAX_ATTEMPTS, then failed;
 * - another 4xx: failed; the chat's later chunks still go;
 * - blocked (Telegram's 403): failed, the chat's queue cancelled, the binding blocked.
 *
 * A row with `edit_of` (a streamed answer's final first chunk) edits that message instead; an
 * edit sent twice shows once (the adapter takes "not modified" as done), and a message that can
 * no longer be edited (deleted, too old) gets the text as a new message: the final text is never
 * lost.
 *
 * Delivery is at least once for the chunk in flight when a host dies (it cannot know whether
 * the service got it); every chunk carries a stable idempotency key (`<delivery>.<seq>`, the
 * webhook's `webhook-id`) so a receiver that dedupes sees it once.
 */
const BATCH = 16
const LEASE_MS = 60_000
const IDLE_MS = 5_000
const MAX_ATTEMPTS = 8
/** Rate limits are the service pacing us, not a failure: they get more patience. */
const MAX_RATE_LIMITED_ATTEMPTS = 30

export function createOutbox(deps: {
  db: Db
  directory: ChannelDirectory
  log: Logger
  leaseMs?: number
}) {
  const { db, directory, log } = deps
  const leaseMs = deps.leaseMs ?? LEASE_MS
  const abort = new AbortController()
  let wake: (() => void) | undefined
  // A wake that came while a pass was running: the next sleep is skipped.
  let woken = false
  let loop: Promise<void> | undefined

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || abort.signal.aborted) {
        woken = false
        return resolve()
      }
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        wake = undefined
        resolve()
      }
      wake = done
    })

  async function send(row: OutboxRow): Promise<void> {
    const channel = await directory.get(row.channelId).catch(() => undefined)
    if (!channel) return markFailed(db, row.id, row.attempts, 'the channel is gone')
    try {
      const message = {
        ...row.target,
        text: row.body,
        ...(row.buttons && { buttons: row.buttons }),
        idempotencyKey: `${row.deliveryId}.${row.seq}`,
      }
      const result = row.editOf
        ? await editOrPost(channel.adapter, message, row.editOf, abort.signal)
        : await channel.adapter.post(message, abort.signal)
      await markSent(db, row.id, row.attempts, result.externalId)
      if (channel.row.state === 'error') await markChannel(db, row.channelId, null)
    } catch (error) {
      if (abort.signal.aborted) return
      const message = errorMessage(error)
      if (error instanceof PermanentSendError) {
        log.warn('channel chunk refused', { channelId: row.channelId, id: row.id, error: message })
        if (error.blocked) await markBlocked(db, row, message)
        else await markFailed(db, row.id, row.attempts, message)
        await markChannel(db, row.channelId, message)
        return
      }
      const limited = error instanceof RateLimitedError
      const given = limited || error instanceof TransientSendError ? error.retryAfterMs : undefined
      if (row.attempts >= (limited ? MAX_RATE_LIMITED_ATTEMPTS : MAX_ATTEMPTS)) {
        await markFailed(
          db,
          row.id,
          row.attempts,
          `gave up after ${row.attempts} attempts: ${message}`,
        )
        await markChannel(db, row.channelId, message)
        return
      }
      const delayMs = retryDelayMs(row.attempts, given)
      log.info('channel chunk retried', {
        channelId: row.channelId,
        id: row.id,
        delayMs,
        error: message,
      })
      await markRetry(db, row.id, row.attempts, delayMs, message)
    }
  }

  async function run(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        const rows = await claimDue(db, BATCH, leaseMs)
        if (rows.length > 0) {
          await Promise.all(rows.map(send))
          continue
        }
        const ms = await msUntilDue(db)
        await sleep(Math.min(ms ?? IDLE_MS, IDLE_MS))
      } catch (error) {
        if (abort.signal.aborted) return
        log.error('channel outbox pass failed', { error: errorMessage(error) })
        await sleep(1_000)
      }
    }
  }

  return {
    start(): void {
      loop ??= run()
    },
    /** A delivery was queued: look now rather than at the next timer. */
    wake(): void {
      if (wake) wake()
      else woken = true
    },
    /** Stops sending; a chunk in flight is abandoned to its lease (sent again by the next pass). */
    async stop(): Promise<void> {
      abort.abort()
      if (wake) wake()
      else woken = true
      await loop
    },
  }
}
export type Outbox = ReturnType<typeof createOutbox>

/**
 * The final text of a streamed answer's first message: an edit of it, retried like any chunk
 * (429, 5xx); where the service refuses the edit for good (the message was deleted) but would
 * still take a message, the text is sent as a new one.
 */
async function editOrPost(
  adapter: ChannelAdapter,
  message: OutboundMessage,
  messageId: string,
  signal: AbortSignal,
): Promise<SendResult> {
  if (!adapter.edit) return adapter.post(message, signal)
  try {
    await adapter.edit({ ...message, messageId }, signal)
    return { externalId: messageId }
  } catch (error) {
    if (!(error instanceof PermanentSendError) || error.blocked) throw error
    return adapter.post(message, signal)
  }
}
