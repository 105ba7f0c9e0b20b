/**
 * The one backoff rule for calls to another service that may say "later": the channel outbox
 * today; MCP reconnects and the task runner are meant to share it. A delay the service gave
 * (`Retry-After` in seconds or as an HTTP date, Telegram's `retry_after`, Slack's header) is
 * honoured as given, bounded by `maxMs`; without one, exponential backoff from `baseMs` with
 * jitter, so many senders retrying after one outage do not all come back at the same moment.
 */
export type Backoff = { baseMs: number; maxMs: number }

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 10 * 60_000 }

/** Milliseconds a `Retry-After` header asks for; undefined when absent or unreadable. */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * How long to wait before attempt `attempt + 1` (`attempt` counts from 1): the service's own
 * delay when it gave one, else `baseMs · 2^(attempt-1)` with up to a quarter added at random.
 */
export function retryDelayMs(
  attempt: number,
  givenMs: number | undefined,
  backoff: Backoff = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  if (givenMs !== undefined && Number.isFinite(givenMs)) {
    return Math.min(backoff.maxMs, Math.max(0, givenMs))
  }
  const exponential = backoff.baseMs * 2 ** Math.max(0, attempt - 1)
  return Math.min(backoff.maxMs, Math.round(exponential * (1 + random() / 4)))
}
