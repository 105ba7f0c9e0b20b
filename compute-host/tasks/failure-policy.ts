import type { TaskRow } from '../../runtime/tasks/index.ts'
import { isTransient, type ErrorClass } from './error-classes.ts'

export {
  classify,
  classifyError,
  ERROR_CLASSES,
  isTransient,
  TaskFailure,
  type ErrorClass,
} from './error-classes.ts'

export type Decision =
  { state: 'queued'; nextAttemptAt: Date; maxAttempts: number } | { state: 'failed' | 'cancelled' }

export type Backoff = { baseMs: number; capMs: number }
export const DEFAULT_BACKOFF: Backoff = { baseMs: 5_000, capMs: 5 * 60_000 }

/** The wait before the next attempt: base, twice that, … up to the cap. */
export function backoffDelay(attemptCount: number, backoff: Backoff): number {
  // Past 2^30 the product only ever hits the cap; the exponent is clamped so it stays finite.
  const exponent = Math.min(30, Math.max(0, attemptCount - 1))
  return Math.min(backoff.capMs, backoff.baseMs * 2 ** exponent)
}

/**
 * After a failed attempt, for every source. A transient failure (the database, the gateway or the
 * network is away, a rate limit, an interruption) waits for its dependency: the task is queued
 * again after a capped exponential backoff, and its attempt ceiling moves up by one when this
 * attempt reached it, so an outage never turns into a dead-letter that needs an operator. A
 * permanent failure fails the task (user work is not replayed once something is really wrong
 * with it), except a remediation, which retries every failure until it completes, unless the
 * tree's budget has ended. Cancellation always wins.
 */
export function decide(
  task: Pick<TaskRow, 'source' | 'kind' | 'attemptCount' | 'maxAttempts'>,
  errorClass: ErrorClass,
  now: Date,
  backoff: Backoff = DEFAULT_BACKOFF,
): Decision {
  if (errorClass === 'cancelled') return { state: 'cancelled' }
  // The tree's budget is shared: a remediation out of budget ends too, never retried.
  if (errorClass === 'budget-exhausted') return { state: 'failed' }
  // A hook's denial is final: retrying, even as a remediation, would ask the same policy again.
  if (errorClass === 'hook-denied') return { state: 'failed' }
  if (task.kind !== 'remediation' && !isTransient(errorClass)) return { state: 'failed' }
  return {
    state: 'queued',
    nextAttemptAt: new Date(now.getTime() + backoffDelay(task.attemptCount, backoff)),
    maxAttempts: Math.max(task.maxAttempts, task.attemptCount + 1),
  }
}
