import { Cron } from 'croner'
import type { CronPreview } from '../../runtime/contracts/host-api.ts'
import { InvalidCron } from '../../runtime/schedules/errors.ts'

/**
 * croner, wrapped: the only place that reads cron expressions. Expressions are standard five-field
 * ones (minute precision; nicknames such as `@daily` too) read in the server's timezone, which is
 * the host process's (`TZ`). The `timezone` option exists for tests (DST) only; the API never
 * takes one.
 *
 * croner 11's DST rules, measured in test/schedules.test.ts: a fixed-time expression (single
 * minute and hour, e.g. `30 2 * * *`) whose time falls in the spring-forward gap runs once at the
 * first valid time after it (03:00), and one whose time repeats at fall-back runs once, on the
 * first pass; any other expression, lists included (`30 * * * *`, `30 2,14 * * *`), skips times in
 * the gap and runs on both passes of a repeated hour.
 */
export type CronOptions = { timezone?: string }

export const serverTimezone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

/** Parses an expression; INVALID_CRON (400) with croner's reason when it cannot be read. */
export function parseCron(expression: string, options: CronOptions = {}): Cron {
  try {
    // No callback, so croner starts no timer: it only computes.
    return new Cron(expression, { mode: '5-part', timezone: options.timezone ?? serverTimezone() })
  } catch (error) {
    const reason =
      error instanceof Error ? error.message.replace(/^CronPattern: /, '') : 'unreadable'
    throw new InvalidCron(
      { cron: expression },
      { message: `invalid cron expression "${expression}": ${reason}` },
    )
  }
}

/** The first occurrence strictly after `after`, or null when there is none. */
export function nextAfter(cron: Cron, after: Date): Date | null {
  return cron.nextRun(after)
}

/** How many occurrences lie strictly between `from` and `to`, counted up to `cap`. */
export function countBetween(cron: Cron, from: Date, to: Date, cap: number): number {
  let count = 0
  for (const occurrence of cron.enumerate(from)) {
    if (occurrence >= to || count >= cap) break
    count++
  }
  return count
}

/**
 * The overdue occurrences from `due` (the stored next occurrence, overdue itself) up to and
 * including `at`, oldest first: all of them, or, when there are more than `cap`, the newest `cap`
 * and how many older ones there are (counted up to `cap`; `olderAtLeast` says the count stopped).
 * A short outage costs a step or two forward; only a long one walks back from `at`.
 */
export function overdueUpTo(
  cron: Cron,
  due: Date,
  at: Date,
  cap: number,
): { newest: Date[]; older: number; olderAtLeast: boolean } {
  const found = [due]
  for (const occurrence of cron.enumerate(due)) {
    if (occurrence > at) break
    if (found.length === cap) {
      // previousRuns excludes a run exactly at its reference; one millisecond later includes it.
      const newest = cron.previousRuns(cap, new Date(at.getTime() + 1)).reverse()
      const between = countBetween(cron, due, newest[0]!, cap)
      return { newest, older: 1 + between, olderAtLeast: between >= cap }
    }
    found.push(occurrence)
  }
  return { newest: found, older: 0, olderAtLeast: false }
}

/** Checks an expression for the API: valid, and occurring at least once; its next `count` runs. */
export function previewCron(
  expression: string,
  options: CronOptions & { now?: Date; count?: number } = {},
): CronPreview {
  const cron = parseCron(expression, options)
  const next = cron.nextRuns(options.count ?? 5, options.now ?? new Date())
  if (next.length === 0) {
    throw new InvalidCron(
      { cron: expression },
      { message: `invalid cron expression "${expression}": it never occurs` },
    )
  }
  return {
    valid: true,
    timezone: options.timezone ?? serverTimezone(),
    next: next.map((d) => d.toISOString()),
  }
}
