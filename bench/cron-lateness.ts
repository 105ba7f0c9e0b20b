/**
 * Schedule fire lateness: how long after an occurrence's instant its task row exists, against
 * croner's own one-shot timers (`new Cron(date, cb)`) at the same instants in this process.
 *
 * Cron is five-part (minute resolution), so many fires come from many schedules whose
 * `next_run_at` is written directly, staggered every STAGGER_MS a little in the future; the
 * expression is a yearly one so croner's own occurrences never supersede those instants. The
 * scheduler runs here as the compute host runs it (default one-second poll, started before the
 * schedules exist, so the poll is what first sees them and the armed timer what fires them).
 *
 * When a row "exists": `created_at` is PostgreSQL's now(), the start of the scheduler's
 * transaction, which is before the row is visible to anyone, so it would flatter us. Instead the
 * bench LISTENs on the task wake-up channel, which the insert trigger NOTIFYs on commit, and on
 * each wake-up reads the tasks it has not seen; a task's time is when that read returns. That is
 * an upper bound (commit, delivery and one query late), so it never understates the lateness.
 *
 * Rounds alternate which of the two goes first; the lateness of every fire is pooled.
 */
import { Cron } from 'croner'
import { inArray } from '../db/drizzle-orm.ts'
import { setTimeout as sleep } from 'node:timers/promises'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import type { Db } from '../db/index.ts'
import { schedules, tasks } from '../db/schema/index.ts'
import { createId } from '../runtime/ids.ts'
import { TASK_WAKE_CHANNEL } from '../runtime/tasks/notify-topics.ts'
import { benchDatabase } from './database.ts'
import type { BenchMode, BenchResult } from './result.ts'
import { percentile } from './stats.ts'

const STAGGER_MS = 20
// Longer than the scheduler's poll, so a running scheduler has seen every schedule in time.
const LEAD_MS = 1_500
// How long after the last instant a fire may still arrive before it counts as missed.
const GRACE_MS = 3_000
const YEARLY = '0 0 1 1 *'

type Round = { lateMs: number[]; missed: number; duplicated: number }
/** Where the task wake-up LISTEN sends its notifications; each round points it at its reader. */
type Listener = { on: () => void }

/** Lateness of our scheduler: `fires` schedules due STAGGER_MS apart, each to fire once. */
async function oursRound(db: Db, listen: Listener, fires: number): Promise<Round> {
  const base = Date.now() + LEAD_MS
  const rows = Array.from({ length: fires }, (_, i) => ({
    id: createId('schedule'),
    source: 'user' as const,
    workspaceId: 'wsp_default',
    name: `bench ${i}`,
    cron: YEARLY,
    prompt: 'bench',
    nextRunAt: new Date(base + i * STAGGER_MS),
  }))
  const dueAt = new Map(rows.map((r) => [r.id, r.nextRunAt.getTime()]))
  const ids = rows.map((r) => r.id)
  const seenAt = new Map<string, number>()
  // Reads this round's tasks; a schedule's first sighting is its fire's time.
  const read = async () => {
    const found = await db
      .select({ scheduleId: tasks.scheduleId, occurrenceAt: tasks.occurrenceAt })
      .from(tasks)
      .where(inArray(tasks.scheduleId, ids))
    const at = Date.now()
    for (const { scheduleId } of found) if (!seenAt.has(scheduleId!)) seenAt.set(scheduleId!, at)
    return found
  }
  // Reads run one after another, each started after the commit that woke it; wake-ups that
  // arrive while a read is still waiting to start are all covered by that read.
  let reading = Promise.resolve()
  let waiting = false
  listen.on = () => {
    if (waiting) return
    waiting = true
    reading = reading
      .then(() => {
        waiting = false
        return read()
      })
      .then(() => {})
  }
  await db.insert(schedules).values(rows)
  await sleep(LEAD_MS + fires * STAGGER_MS)
  const deadline = Date.now() + GRACE_MS
  while (seenAt.size < fires && Date.now() < deadline) await sleep(20)
  listen.on = () => {}
  await reading
  // The last read also times any fire no wake-up announced (late, never early).
  const counts = new Map<string, number>()
  for (const { scheduleId, occurrenceAt } of await read()) {
    // A task for another occurrence than the instant set is not that instant's fire.
    if (occurrenceAt?.getTime() !== dueAt.get(scheduleId!)) continue
    counts.set(scheduleId!, (counts.get(scheduleId!) ?? 0) + 1)
  }
  await db.delete(schedules).where(inArray(schedules.id, ids))
  const lateMs = [...seenAt].map(([id, at]) => at - dueAt.get(id)!)
  return {
    lateMs,
    missed: ids.filter((id) => !counts.has(id)).length,
    duplicated: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
  }
}

/** Lateness of croner's one-shot timers at the same kind of instants, in this process. */
async function cronerRound(fires: number): Promise<Round> {
  const base = Date.now() + LEAD_MS
  const lateMs: number[] = []
  const runs = new Array<number>(fires).fill(0)
  const jobs = Array.from({ length: fires }, (_, i) => {
    const at = base + i * STAGGER_MS
    return new Cron(new Date(at), () => {
      if (runs[i]!++ === 0) lateMs.push(Date.now() - at)
    })
  })
  await sleep(LEAD_MS + fires * STAGGER_MS)
  const deadline = Date.now() + GRACE_MS
  while (lateMs.length < fires && Date.now() < deadline) await sleep(20)
  for (const job of jobs) job.stop()
  return {
    lateMs,
    missed: runs.filter((n) => n === 0).length,
    duplicated: runs.reduce((sum, n) => sum + Math.max(0, n - 1), 0),
  }
}

export async function benchCronLateness({ quick }: BenchMode): Promise<BenchResult[]> {
  // Quick proves the path (CI): one round a side; the figures come from the full mode.
  const options = quick ? { rounds: 1, fires: 60 } : { rounds: 6, fires: 250 }
  const database = await benchDatabase()
  const host = openNodePostgres(database.url, { max: 4 })
  const listener: Listener = { on: () => {} }
  const unlisten = await host.listen(TASK_WAKE_CHANNEL, () => listener.on())
  const scheduler = createScheduler({
    db: host.db,
    log: createLogger({ secrets: [], write: () => {} }),
  })
  scheduler.start()
  try {
    const ours: Round[] = []
    const theirs: Round[] = []
    for (let round = 0; round < options.rounds; round++) {
      if (round % 2 === 0) {
        ours.push(await oursRound(host.db, listener, options.fires))
        theirs.push(await cronerRound(options.fires))
      } else {
        theirs.push(await cronerRound(options.fires))
        ours.push(await oursRound(host.db, listener, options.fires))
      }
    }
    const pooled = (rounds: Round[]) => rounds.flatMap((r) => r.lateMs)
    const sum = (rounds: Round[], field: 'missed' | 'duplicated') =>
      rounds.reduce((total, r) => total + r[field], 0)
    const o = pooled(ours)
    const t = pooled(theirs)
    const p99 = percentile(o, 99)
    const missed = sum(ours, 'missed')
    const duplicated = sum(ours, 'duplicated')
    const figures = (late: number[]) =>
      `p50 ${percentile(late, 50)} / p99 ${percentile(late, 99)} / max ${Math.max(...late)} ms`
    return [
      {
        name: 'schedule fire lateness p99',
        goal: 'p99 ≤ 50 ms, none missed or duplicated',
        ratio: p99,
        unit: 'ms',
        met: p99 <= 50 && missed === 0 && duplicated === 0,
        detail:
          `ours ${figures(o)} (occurrence to task row visible, observed on commit); croner ` +
          `one-shot timers ${figures(t)}; ${options.rounds * options.fires} fires each, ` +
          `${STAGGER_MS} ms apart; missed ${missed}/${sum(theirs, 'missed')}, duplicated ` +
          `${duplicated}/${sum(theirs, 'duplicated')} (ours/croner)`,
      },
    ]
  } finally {
    await scheduler.stop()
    await unlisten()
    await host.close()
    await database.drop()
  }
}
