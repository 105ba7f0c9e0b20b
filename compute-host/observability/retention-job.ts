import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import { runRetention } from './retention.ts'
import type { SpanStorage } from './span-store.ts'

const DAILY_HOUR = 3

/** The next 03:00 (server time) after `now`. */
export function nextDailyRun(now: Date): Date {
  const next = new Date(now)
  next.setHours(DAILY_HOUR, 0, 0, 0)
  if (next <= now) next.setDate(next.getDate() + 1)
  return next
}

/**
 * The retention job: once at start (`boot`, catching up on a host that was down at 03:00), then
 * daily at 03:00. A failed run is recorded and logged, and the next day's run tries again; the
 * host never waits for it.
 */
export function startRetentionJob(options: {
  storage: SpanStorage
  db: Db
  log: Logger
  redact: (text: string) => string
}) {
  const abort = new AbortController()
  let timer: NodeJS.Timeout | undefined
  let nextAt: Date | undefined
  let running: Promise<unknown> = Promise.resolve()
  const run = (trigger: 'boot' | 'daily') => {
    running = runRetention({ ...options, trigger, signal: abort.signal })
      .then(({ partitionsDropped }) =>
        options.log.info('observability retention ran', { trigger, partitionsDropped }),
      )
      .catch((error: unknown) => options.log.warn('observability retention failed', { error }))
    return running
  }
  const schedule = () => {
    if (abort.signal.aborted) return
    nextAt = nextDailyRun(new Date())
    timer = setTimeout(() => void run('daily').finally(schedule), nextAt.getTime() - Date.now())
    timer.unref()
  }
  return {
    /** Runs the boot pass, then keeps the daily one scheduled. */
    start() {
      void run('boot').finally(schedule)
    },
    nextRunAt: () => nextAt ?? null,
    async stop() {
      abort.abort()
      clearTimeout(timer)
      await running
    },
  }
}
