import type { Db } from '../../db/index.ts'
import * as Approvals from '../../runtime/approvals/index.ts'
import type { ApprovalRow } from '../../runtime/approvals/index.ts'

/**
 * The one wait primitive of approvals: reads the row every `pollMs` until it is decided, its
 * time is up or `signal` aborts. Each read is one short SELECT on a pooled connection, returned
 * at once: a waiting run holds no connection and no transaction, however long the owner takes.
 * Polling (rather than LISTEN, which pins a connection per waiter) keeps it that way; the
 * interval bounds how late an answer is noticed.
 *
 * When the wait ends undecided (time up, or the run stopped) the row is marked expired, in one
 * guarded UPDATE: an answer that won the race is kept and returned instead, so the run and the
 * owner always agree on what happened.
 */
export const DEFAULT_POLL_MS = 500

export async function waitForDecision(
  db: Db,
  id: string,
  options: { timeoutMs: number; pollMs?: number; signal?: AbortSignal | undefined },
): Promise<ApprovalRow> {
  const pollMs = Math.max(10, options.pollMs ?? DEFAULT_POLL_MS)
  const deadline = Date.now() + options.timeoutMs
  while (!options.signal?.aborted) {
    const row = await Approvals.rowOf(db, id)
    if (!row) throw new Error(`approval ${id} is gone`)
    if (row.status !== 'pending') return row
    const left = deadline - Date.now()
    if (left <= 0) break
    await sleep(Math.min(pollMs, left), options.signal)
  }
  const row = await Approvals.expire(db, id)
  if (!row) throw new Error(`approval ${id} is gone`)
  return row
}

/** Waits `ms`, or less when `signal` aborts first; never rejects. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
