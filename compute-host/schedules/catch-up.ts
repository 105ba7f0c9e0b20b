import type { Cron } from 'croner'
import type { ScheduleCatchUp } from '../../db/task-enums.ts'
import { overdueUpTo } from './cron.ts'

/**
 * What a due schedule does with its overdue occurrences (docs/schedules.md, "Catch-up after
 * downtime"). Every overdue occurrence is decided once: fired, or recorded skipped with a reason
 * the owner reads in the schedule's history, so nothing is skipped silently.
 *
 *   latest  the newest fires, the older ones are skipped (anacron's rule; the default)
 *   each    each fires, oldest first, but only the newest CATCH_UP_EACH_BOUND
 *   none    only an occurrence at most CATCH_UP_GRACE_MS late fires
 */

/** `each` fires at most this many missed occurrences: a day of an hourly schedule. */
export const CATCH_UP_EACH_BOUND = 24
/**
 * How late `none` still fires an occurrence. A running host fires within milliseconds (the
 * timer) or a second (the poll); a minute covers a busy database or a quick restart, while an
 * outage is longer.
 */
export const CATCH_UP_GRACE_MS = 60_000
/**
 * Occurrences decided per schedule and pass: the newest ones. Older overdue ones (a per-minute
 * schedule after a day down) are counted, and the count goes into the oldest skip's reason and
 * the log instead of a row each.
 */
export const CATCH_UP_RECORD_CAP = 1_000

const REASONS: Record<ScheduleCatchUp, string> = {
  latest: 'missed: no host was running',
  each: `missed: beyond the catch-up bound (${CATCH_UP_EACH_BOUND})`,
  none: `missed: more than ${CATCH_UP_GRACE_MS / 1000} s late (catch-up: none)`,
}

export type Skip = { occurrenceAt: Date; reason: string }

export type CatchUpPlan = {
  /** Oldest first. */
  fire: Date[]
  skip: Skip[]
  /** All skipped occurrences, the unrecorded older ones included. */
  skipped: number
  /** True when `skipped` is a lower bound (the older ones were counted up to the cap). */
  skippedAtLeast: boolean
}

/** The plan for the occurrences from `due` (the stored next one) up to `at`. */
export function planCatchUp(
  cron: Cron,
  due: Date,
  at: Date,
  catchUp: ScheduleCatchUp,
): CatchUpPlan {
  const { newest, older, olderAtLeast } = overdueUpTo(cron, due, at, CATCH_UP_RECORD_CAP)
  const fire =
    catchUp === 'latest'
      ? newest.slice(-1)
      : catchUp === 'each'
        ? newest.slice(-CATCH_UP_EACH_BOUND)
        : newest.filter((o) => at.getTime() - o.getTime() <= CATCH_UP_GRACE_MS)
  const reason = REASONS[catchUp]
  const skip = newest
    .filter((o) => !fire.includes(o))
    .map((occurrenceAt, i) => ({
      occurrenceAt,
      // The oldest record says how many more were missed before it.
      reason:
        i === 0 && older > 0
          ? `${reason} (and ${olderAtLeast ? 'at least ' : ''}${older} earlier, not recorded)`
          : reason,
    }))
  return { fire, skip, skipped: skip.length + older, skippedAtLeast: olderAtLeast }
}
