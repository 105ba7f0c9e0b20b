import { and, asc, eq, gt, isNull, lte, min, or, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { scheduleFires, schedules } from '../../db/schema/index.ts'
import { isAutonomousSource } from '../../db/task-enums.ts'
import { createId } from '../../runtime/ids.ts'
import { AutonomousTaskActive } from '../../runtime/self-update/autonomous-slot.ts'
import { scheduledTask } from '../../runtime/schedules/scheduled-task.ts'
import * as Settings from '../../runtime/settings/index.ts'
import { enqueue } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import { planCatchUp, type CatchUpPlan, type Skip } from './catch-up.ts'
import { nextAfter, parseCron, type CronOptions } from './cron.ts'

/**
 * Turns due cron occurrences into queued tasks. croner computes the times; PostgreSQL decides who
 * fires. Every host runs one of these: a tick takes a transaction-scoped advisory lock, so the
 * hosts materialise one after another, and each occurrence is first claimed in the
 * (schedule, occurrence) unique index, so an occurrence that somehow comes round again (another
 * host with a stale view, a schedule pointed back in time) is a no-op. The tasks' wake-up NOTIFY
 * is delivered on commit: runners never see a task whose occurrence could still roll back.
 *
 * Catch-up (catch-up.ts): when occurrences of a schedule are overdue (the hosts were down), its
 * policy decides which fire (by default only the most recent, like anacron); each one that does
 * not is recorded skipped in the same fire records, with the reason, and counted in the log. A
 * schedule whose next occurrence is unset (just enabled) gets it computed from now, without
 * firing.
 *
 * Timing: after each pass the timer is armed for the earliest known next occurrence, so a fire is
 * late by a query, not by a poll; it never waits longer than `intervalMs`, which remains the
 * fallback that finds schedules created or moved elsewhere (the API, another host).
 */
export type Scheduler = {
  start(): void
  /** Stops the timer and waits for a running tick. */
  stop(): Promise<void>
  /** One materialisation pass; resolves with the number of tasks it created. */
  tick(): Promise<number>
}

// pg_advisory_xact_lock key shared by every materialiser: "popc" in a 32-bit number.
export const SCHEDULER_LOCK_KEY = 0x706f7063
// Due schedules handled per transaction; any beyond wait for the next tick.
const BATCH = 100

/** One pass: the tasks it created and when the next one is due (now, when a batch was full). */
type Pass = { fired: number; wakeAt: Date | undefined }

export function createScheduler(options: {
  db: Db
  log: Logger
  now?: () => Date
  /** Tests only: the cron timezone (default: the server's). */
  timezone?: string
  intervalMs?: number
}): Scheduler {
  const { db, log } = options
  const now = options.now ?? (() => new Date())
  const cronOptions: CronOptions = options.timezone ? { timezone: options.timezone } : {}
  const intervalMs = options.intervalMs ?? 1_000
  let running: Promise<Pass> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = true

  const isDue = (at: Date) =>
    and(eq(schedules.enabled, true), or(isNull(schedules.nextRunAt), lte(schedules.nextRunAt, at)))

  async function materialise(): Promise<Pass> {
    const at = now()
    // A lock-free look first, so idle hosts do not queue on the lock every second. It reads the
    // earliest enabled schedule: unset or past means due, otherwise it is when to look again.
    const [first] = await db
      .select({ nextRunAt: schedules.nextRunAt })
      .from(schedules)
      .where(eq(schedules.enabled, true))
      .orderBy(sql`${schedules.nextRunAt} asc nulls first`)
      .limit(1)
    if (!first) return { fired: 0, wakeAt: undefined }
    if (first.nextRunAt && first.nextRunAt > at) return { fired: 0, wakeAt: first.nextRunAt }
    return db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SCHEDULER_LOCK_KEY})`)
      const due = await tx
        .select()
        .from(schedules)
        .where(isDue(at))
        .orderBy(asc(schedules.nextRunAt))
        .limit(BATCH)
        .for('update')
      let fired = 0
      for (const schedule of due) {
        const plan = planFor(schedule, at, cronOptions)
        if (!plan) {
          // An expression this host cannot read (after a croner upgrade, say) would otherwise fail
          // every tick: pause the schedule and say why.
          log.error('schedule paused: its cron expression no longer yields an occurrence', {
            scheduleId: schedule.id,
            cron: schedule.cron,
          })
          await tx
            .update(schedules)
            .set({ enabled: false, nextRunAt: null, updatedAt: sql`now()` })
            .where(eq(schedules.id, schedule.id))
          continue
        }
        // The newest occurrence that became a task here, if any.
        let lastFired: Date | undefined
        if (plan.catchUp) {
          for (const occurrence of plan.catchUp.fire) {
            if (await fireGated(tx, schedule, occurrence, log)) {
              fired++
              lastFired = occurrence
            }
          }
          await recordSkips(tx, schedule.id, plan.catchUp.skip)
          if (plan.catchUp.skipped > 0) logCatchUp(log, schedule, plan.catchUp)
        }
        await tx
          .update(schedules)
          .set({
            nextRunAt: plan.next,
            ...(lastFired && { lastFiredAt: lastFired }),
            updatedAt: sql`now()`,
          })
          .where(eq(schedules.id, schedule.id))
      }
      // A full batch may have left due schedules behind: go again at once.
      if (due.length === BATCH) return { fired, wakeAt: at }
      // Strictly after `at`: every wake-up then either finds something due (and moves it on) or
      // finds the clock short of it, so the timer cannot spin on a schedule that stays due.
      const [next] = await tx
        .select({ at: min(schedules.nextRunAt) })
        .from(schedules)
        .where(and(eq(schedules.enabled, true), gt(schedules.nextRunAt, at)))
      return { fired, wakeAt: next?.at ?? undefined }
    })
  }

  function pass(): Promise<Pass> {
    running ??= materialise().finally(() => (running = undefined))
    return running
  }

  async function loop() {
    let delay = intervalMs
    try {
      const { wakeAt } = await pass()
      if (wakeAt) delay = Math.min(intervalMs, Math.max(0, wakeAt.getTime() - now().getTime()))
    } catch (error) {
      log.error('schedule materialisation failed; retrying', { error })
    }
    if (!stopped) timer = setTimeout(loop, delay).unref()
  }

  return {
    tick: () => pass().then((p) => p.fired),
    start() {
      if (!stopped) return
      stopped = false
      timer = setTimeout(loop, 0).unref()
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running?.catch(() => {})
    },
  }
}

type ScheduleRow = typeof schedules.$inferSelect

/**
 * What one due schedule does at `at`: its overdue occurrences fired and skipped (none when it only
 * needs its next occurrence computed), and the next occurrence after `at`. Undefined when its
 * expression yields no occurrence on this host.
 */
function planFor(
  schedule: ScheduleRow,
  at: Date,
  cronOptions: CronOptions,
): { catchUp: CatchUpPlan | null; next: Date } | undefined {
  let cron
  try {
    cron = parseCron(schedule.cron, cronOptions)
  } catch {
    return undefined
  }
  const next = nextAfter(cron, at)
  if (!next) return undefined
  const due = schedule.nextRunAt
  if (!due) return { catchUp: null, next }
  return { catchUp: planCatchUp(cron, due, at, schedule.catchUp), next }
}

function logCatchUp(log: Logger, schedule: ScheduleRow, plan: CatchUpPlan) {
  log.warn('schedule caught up: missed occurrences are recorded skipped in its history', {
    scheduleId: schedule.id,
    catchUp: schedule.catchUp,
    fired: plan.fire.map((o) => o.toISOString()),
    skipped: plan.skipped,
    recorded: plan.skip.length,
    ...(plan.skippedAtLeast && { skippedAtLeast: true }),
  })
}

/**
 * Records skipped occurrences beside the fired ones. The same unique index decides each
 * occurrence once: one another host already fired or skipped stays as it was.
 */
async function recordSkips(tx: Db, scheduleId: string, skips: Skip[]) {
  if (skips.length === 0) return
  await tx
    .insert(scheduleFires)
    .values(skips.map((s) => ({ scheduleId, ...s, outcome: 'skipped' as const })))
    .onConflictDoNothing()
}

/**
 * A self-update occurrence fires only while the autonomy settings allow it (reread in this
 * transaction) and no self-update task is active anywhere; otherwise it is recorded skipped with
 * the reason, said in the log, and the schedule moves on to its next occurrence. Other sources
 * fire as they are.
 */
async function fireGated(
  tx: Db,
  schedule: ScheduleRow,
  occurrence: Date,
  log: Logger,
): Promise<boolean> {
  if (!isAutonomousSource(schedule.source)) return fire(tx, schedule, occurrence)
  const skip = async (reason: string) => {
    log.info(`${schedule.source} occurrence skipped`, {
      scheduleId: schedule.id,
      occurrenceAt: occurrence.toISOString(),
      reason,
    })
    await recordSkips(tx, schedule.id, [{ occurrenceAt: occurrence, reason }])
    return false
  }
  if (schedule.source === 'self-update' && !(await Settings.autonomy.get(tx)).selfUpdateEnabled)
    return skip('self-update is off')
  try {
    // A savepoint: the refused occurrence leaves no fire row (only its skip) and the pass goes on.
    return await tx.transaction((savepoint) => fire(savepoint, schedule, occurrence))
  } catch (error) {
    if (error instanceof AutonomousTaskActive)
      return skip('an autonomous task (self-update or build-maintenance) was already active')
    throw error
  }
}

/**
 * Claims one occurrence and, when the claim is new, queues its task with the schedule's source,
 * workspace and `maxAttempts`. True when a task was created.
 */
async function fire(tx: Db, schedule: ScheduleRow, occurrence: Date): Promise<boolean> {
  const taskId = createId('task')
  const [claimed] = await tx
    .insert(scheduleFires)
    .values({ scheduleId: schedule.id, occurrenceAt: occurrence, taskId })
    .onConflictDoNothing()
    .returning()
  if (!claimed) return false
  await enqueue(tx, scheduledTask(schedule, occurrence, taskId))
  return true
}
