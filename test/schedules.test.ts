/**
 * The scheduler against real PostgreSQL: two hosts (each its own connection pool) materialise the
 * same schedules on a shared, controllable clock. Expected occurrences come from croner itself, so
 * the assertions compare the database with croner's list, not with numbers written here.
 */
import assert from 'node:assert/strict'
import { Cron } from 'croner'
import { asc, eq } from '../db/drizzle-orm.ts'
import { after, before, beforeEach, describe, test } from 'node:test'
import type { DatabaseHandle } from '../compute-host/database/handle.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { previewCron } from '../compute-host/schedules/cron.ts'
import { createScheduler, type Scheduler } from '../compute-host/schedules/scheduler.ts'
import type { Db } from '../db/index.ts'
import { scheduleFires, schedules, tasks } from '../db/schema/index.ts'
import type { TaskSource } from '../db/schema/tasks.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { until } from './support/until.ts'

const MINUTE = 60_000

/** A clock both hosts read; tests move it. */
function testClock(start: string) {
  let current = new Date(start).getTime()
  return {
    now: () => new Date(current),
    advance: (ms: number) => void (current += ms),
  }
}

/** Deterministic pseudo-random numbers (mulberry32), so a failing walk can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function capturingLog() {
  const lines: Record<string, any>[] = []
  const log = createLogger({ secrets: [], write: (line) => void lines.push(JSON.parse(line)) })
  return { log, lines }
}

/** croner's own occurrences in (from, to]: the reference the database is compared with. */
function cronerOccurrences(cron: string, from: Date, to: Date, timezone?: string): string[] {
  const out: string[] = []
  for (const at of new Cron(cron, { mode: '5-part', ...(timezone && { timezone }) }).enumerate(
    from,
  )) {
    if (at > to) break
    out.push(at.toISOString())
  }
  return out
}

describe('cron scheduler', () => {
  let database: TestDatabase
  let hosts: DatabaseHandle[]
  let otherWorkspace: string
  before(async () => {
    database = await createTestDatabase()
    // Two hosts, two pools: contention goes through PostgreSQL, not through a shared client.
    hosts = [openNodePostgres(database.url, { max: 3 }), openNodePostgres(database.url, { max: 3 })]
    otherWorkspace = (await Workspaces.create(database.db, { name: 'other', path: 'other' })).id
  })
  after(async () => {
    for (const host of hosts) await host.close()
    await database.drop()
  })
  // Each test owns the schedules it sees (tasks stay; they are looked up by schedule).
  beforeEach(() => database.db.delete(schedules))

  const schedulers = (now: () => Date, options: { timezone?: string } = {}) =>
    hosts.map((h) => createScheduler({ db: h.db, log: capturingLog().log, now, ...options }))

  async function addSchedule(
    now: Date,
    cron: string,
    extra: {
      name?: string
      source?: TaskSource
      workspaceId?: string
      maxAttempts?: number
      model?: string
      timezone?: string
    } = {},
  ) {
    const preview = previewCron(cron, { now, ...(extra.timezone && { timezone: extra.timezone }) })
    return Schedules.create(database.db, {
      workspaceId: extra.workspaceId ?? 'wsp_default',
      name: extra.name ?? `every ${cron}`,
      prompt: `run for ${cron}`,
      ...(extra.model && { model: extra.model }),
      ...(extra.maxAttempts && { maxAttempts: extra.maxAttempts }),
      cron: Schedules.checkedCron(cron, preview),
      source: extra.source ?? 'user',
    })
  }

  const firesOf = (db: Db, id: string) =>
    db
      .select()
      .from(scheduleFires)
      .where(eq(scheduleFires.scheduleId, id))
      .orderBy(asc(scheduleFires.occurrenceAt))
  const tasksOf = (db: Db, id: string) =>
    db.select().from(tasks).where(eq(tasks.scheduleId, id)).orderBy(asc(tasks.occurrenceAt))
  const rowOf = async (id: string) =>
    (await database.db.select().from(schedules).where(eq(schedules.id, id)))[0]!

  /** Moves the clock in steps, both hosts ticking concurrently (in random order) at each. */
  async function walk(
    clock: ReturnType<typeof testClock>,
    pair: Scheduler[],
    until: Date,
    step: () => number,
  ) {
    const fired = pair.map(() => 0)
    const order = random(7)
    while (clock.now() < until) {
      clock.advance(step())
      const first = order() < 0.5 ? 0 : 1
      const counts = await Promise.all([pair[first]!.tick(), pair[1 - first]!.tick()])
      fired[first]! += counts[0]!
      fired[1 - first]! += counts[1]!
    }
    return fired
  }

  test('a simulated week on two hosts fires every occurrence exactly once, copying the schedule into each task', async () => {
    const clock = testClock('2030-06-02T23:52:17Z')
    const start = clock.now()
    const created = [
      await addSchedule(start, '*/15 * * * *', { name: 'twin', maxAttempts: 2 }),
      await addSchedule(start, '*/15 * * * *', { name: 'twin', maxAttempts: 5, model: 'a/b' }),
      await addSchedule(start, '0 * * * *', { workspaceId: otherWorkspace }),
      // User schedules only: self-update and build-maintenance share one autonomous lease that
      // skips an occurrence while the other's task is active (self-update-one-active.test.ts).
      await addSchedule(start, '30 9 * * *', { maxAttempts: 1 }),
      await addSchedule(start, '0 9 * * 1-5', { name: 'weekdays' }),
    ]
    const pair = schedulers(clock.now)
    // Steps of 4 to 15 minutes (never longer than the shortest period, so nothing is overdue
    // twice), at odd seconds.
    const rand = random(42)
    const fired = await walk(
      clock,
      pair,
      new Date(start.getTime() + 7 * 24 * 60 * MINUTE),
      () => 4 * MINUTE + Math.floor(rand() * 11 * 60) * 1000 + 1000,
    )
    const end = clock.now()

    let expectedTotal = 0
    for (const schedule of created) {
      const expected = cronerOccurrences(schedule.cron, start, end)
      expectedTotal += expected.length
      const fires = await firesOf(database.db, schedule.id)
      assert.deepEqual(
        fires.map((f) => f.occurrenceAt.toISOString()),
        expected,
        `occurrences of ${schedule.cron}`,
      )
      const made = await tasksOf(database.db, schedule.id)
      assert.deepEqual(
        made.map((t) => t.occurrenceAt!.toISOString()),
        expected,
        `one task per occurrence of ${schedule.cron}`,
      )
      assert.deepEqual(
        fires.map((f) => f.taskId),
        made.map((t) => t.id),
        'each fire names its task',
      )
      for (const task of made) {
        assert.equal(task.maxAttempts, schedule.maxAttempts)
        assert.equal(task.source, schedule.source)
        assert.equal(task.workspaceId, schedule.workspaceId)
        assert.equal(task.title, schedule.name)
        assert.equal(task.prompt, schedule.prompt)
        assert.equal(task.model, schedule.model)
        assert.equal(task.state, 'queued')
      }
      const row = await rowOf(schedule.id)
      assert.equal(row.lastFiredAt?.toISOString(), expected.at(-1))
      assert.ok(row.nextRunAt! > end, 'the next occurrence is in the future')
    }
    assert.ok(expectedTotal > 800, `a week holds many occurrences (${expectedTotal})`)
    assert.equal(fired[0]! + fired[1]!, expectedTotal, 'the hosts report what they created')
    // Both hosts won the lock at some steps, so the exactly-once result was really contended.
    assert.ok(fired[0]! > 0 && fired[1]! > 0, `both hosts fired: ${fired.join(' / ')}`)
  })

  test('DST in Europe/Berlin: a fixed time in the skipped hour runs once at 03:00 and a repeated one once; interval and list crons skip and repeat', async () => {
    const timezone = 'Europe/Berlin'
    const windows = [
      // Spring forward, 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC).
      { name: 'spring', from: '2026-03-28T22:00:00Z', to: '2026-03-29T06:00:00Z' },
      // Fall back, 25 October 2026: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:xx repeats.
      { name: 'fall', from: '2026-10-24T22:00:00Z', to: '2026-10-25T06:00:00Z' },
    ]
    const seen: Record<string, string[]> = {}
    for (const window of windows) {
      await database.db.delete(schedules)
      const clock = testClock(window.from)
      const fixed = await addSchedule(clock.now(), '30 2 * * *', { timezone })
      const interval = await addSchedule(clock.now(), '30 * * * *', { timezone })
      const list = await addSchedule(clock.now(), '30 2,14 * * *', { timezone })
      await walk(clock, schedulers(clock.now, { timezone }), new Date(window.to), () => 5 * MINUTE)
      for (const schedule of [fixed, interval, list]) {
        const fired = (await firesOf(database.db, schedule.id)).map((f) =>
          f.occurrenceAt.toISOString(),
        )
        const expected = cronerOccurrences(
          schedule.cron,
          new Date(window.from),
          clock.now(),
          timezone,
        )
        assert.deepEqual(fired, expected, `${schedule.cron} in ${window.name}`)
        seen[`${window.name} ${schedule.cron}`] = fired
      }
    }
    // What croner 11 does, as measured (docs/schedules.md describes it):
    // spring: 02:30 does not exist; the fixed-time job runs once, at 03:00 CEST (01:00 UTC) …
    assert.deepEqual(seen['spring 30 2 * * *'], ['2026-03-29T01:00:00.000Z'])
    // … and the interval job skips the missing 02:30 (00:30 UTC is 01:30 CET; 01:30 UTC is
    // 03:30 CEST), so it runs once an hour in UTC, 8 times in these 8 hours.
    assert.equal(seen['spring 30 * * * *']!.length, 8)
    assert.ok(seen['spring 30 * * * *']!.includes('2026-03-29T01:30:00.000Z'))
    // fall: 02:30 happens twice; the fixed-time job runs on the first pass (02:30 CEST) only …
    assert.deepEqual(seen['fall 30 2 * * *'], ['2026-10-25T00:30:00.000Z'])
    // … and the interval job runs on both passes (02:30 CEST and 02:30 CET).
    assert.ok(seen['fall 30 * * * *']!.includes('2026-10-25T00:30:00.000Z'))
    assert.ok(seen['fall 30 * * * *']!.includes('2026-10-25T01:30:00.000Z'))
    // A list of hours counts as an interval job: no 02:30 run in spring, two in autumn.
    assert.deepEqual(seen['spring 30 2,14 * * *'], [])
    assert.deepEqual(seen['fall 30 2,14 * * *'], [
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:30:00.000Z',
    ])
  })

  test('after downtime only the latest overdue occurrence fires, and the skipped ones are recorded and logged', async () => {
    const clock = testClock('2030-07-01T10:03:00Z')
    const schedule = await addSchedule(clock.now(), '*/15 * * * *')
    const { log, lines } = capturingLog()
    const scheduler = createScheduler({ db: hosts[0]!.db, log, now: clock.now })
    clock.advance(125 * MINUTE)
    const overdue = cronerOccurrences(schedule.cron, new Date('2030-07-01T10:03:00Z'), clock.now())
    assert.ok(overdue.length > 2)
    assert.equal(await scheduler.tick(), 1)
    const fires = await firesOf(database.db, schedule.id)
    assert.deepEqual(
      fires.map((f) => [f.occurrenceAt.toISOString(), f.outcome]),
      overdue.map((at, i) => [at, i === overdue.length - 1 ? 'fired' : 'skipped']),
    )
    const warning = lines.find((l) => l.message.startsWith('schedule caught up'))
    assert.equal(warning?.skipped, overdue.length - 1)
    assert.equal(warning?.scheduleId, schedule.id)
    const row = await rowOf(schedule.id)
    assert.ok(row.nextRunAt! > clock.now())
    assert.equal(await scheduler.tick(), 0, 'nothing is due again until the next occurrence')
  })

  test('a second attempt at an occurrence that already fired creates nothing', async () => {
    const clock = testClock('2030-07-02T08:00:30Z')
    const schedule = await addSchedule(clock.now(), '0 * * * *')
    const [a, b] = schedulers(clock.now)
    clock.advance(60 * MINUTE)
    assert.equal(await a!.tick(), 1)
    const [fire] = await firesOf(database.db, schedule.id)
    // A host with a stale view (or a recomputation) points the schedule back at that occurrence.
    await database.db
      .update(schedules)
      .set({ nextRunAt: fire!.occurrenceAt })
      .where(eq(schedules.id, schedule.id))
    assert.equal(await b!.tick(), 0)
    assert.equal((await tasksOf(database.db, schedule.id)).length, 1)
    assert.ok((await rowOf(schedule.id)).nextRunAt! > clock.now(), 'and it moves on')
  })

  test('disabled schedules never fire; re-enabled ones get their next occurrence without making up missed ones', async () => {
    const clock = testClock('2030-07-03T00:00:10Z')
    const schedule = await addSchedule(clock.now(), '*/15 * * * *')
    const [scheduler] = schedulers(clock.now)
    const off = await Schedules.patch(database.db, schedule.id, { enabled: false }, null)
    assert.equal(off.nextRunAt, null)
    clock.advance(3 * 60 * MINUTE)
    assert.equal(await scheduler!.tick(), 0)
    const on = await Schedules.patch(database.db, schedule.id, { enabled: true }, null)
    assert.equal(on.nextRunAt, null)
    assert.equal(await scheduler!.tick(), 0, 'enabling fires nothing')
    const next = (await rowOf(schedule.id)).nextRunAt!
    assert.equal(
      next.toISOString(),
      cronerOccurrences(
        schedule.cron,
        clock.now(),
        new Date(clock.now().getTime() + 15 * MINUTE),
      )[0],
    )
    assert.equal((await tasksOf(database.db, schedule.id)).length, 0)
    clock.advance(15 * MINUTE)
    assert.equal(await scheduler!.tick(), 1)
    assert.equal(
      (await firesOf(database.db, schedule.id))[0]!.occurrenceAt.getTime(),
      next.getTime(),
    )
    const kept = await Schedules.patch(database.db, schedule.id, { name: 'renamed' }, null)
    assert.equal(kept.maxAttempts, schedule.maxAttempts, 'an edit keeps maxAttempts')
  })

  test('a stored expression the host cannot read pauses that schedule only', async () => {
    const clock = testClock('2030-07-04T00:00:10Z')
    const good = await addSchedule(clock.now(), '*/15 * * * *')
    const bad = await addSchedule(clock.now(), '*/15 * * * *')
    await database.db.update(schedules).set({ cron: '99 * * * *' }).where(eq(schedules.id, bad.id))
    const { log, lines } = capturingLog()
    const scheduler = createScheduler({ db: hosts[0]!.db, log, now: clock.now })
    clock.advance(15 * MINUTE)
    assert.equal(await scheduler.tick(), 1)
    assert.equal((await tasksOf(database.db, good.id)).length, 1)
    const paused = await rowOf(bad.id)
    assert.equal(paused.enabled, false)
    assert.equal(paused.nextRunAt, null)
    assert.ok(lines.some((l) => l.level === 'error' && l.scheduleId === bad.id))
  })

  test('start() wakes for the earliest next occurrence instead of waiting for the poll', async () => {
    // A yearly expression, so croner's own occurrences never supersede the instant set here.
    const schedule = await addSchedule(new Date(), '0 0 1 1 *')
    const due = new Date(Date.now() + 300)
    await database.db.update(schedules).set({ nextRunAt: due }).where(eq(schedules.id, schedule.id))
    // The first pass finds nothing due; with a one-minute poll only the armed timer can fire it.
    const scheduler = createScheduler({
      db: hosts[0]!.db,
      log: capturingLog().log,
      intervalMs: 60_000,
    })
    scheduler.start()
    try {
      await until(async () => (await tasksOf(database.db, schedule.id)).length === 1, 2_000)
      // Far inside the minute the poll would take, with room for a loaded machine (the bench
      // cron-lateness measures the lateness itself).
      const late = Date.now() - due.getTime()
      assert.ok(late < 500, `fired ${late} ms after its occurrence`)
      const [task] = await tasksOf(database.db, schedule.id)
      assert.equal(task!.occurrenceAt!.getTime(), due.getTime())
    } finally {
      await scheduler.stop()
    }
  })

  test('start() ticks on its interval, survives a broken database, and stop() waits for the tick', async () => {
    const clock = testClock('2030-07-05T00:00:10Z')
    const schedule = await addSchedule(clock.now(), '*/15 * * * *')
    const scheduler = createScheduler({
      db: hosts[0]!.db,
      log: capturingLog().log,
      now: clock.now,
      intervalMs: 10,
    })
    scheduler.start()
    clock.advance(15 * MINUTE)
    await until(async () => (await tasksOf(database.db, schedule.id)).length === 1, 5_000)
    await scheduler.stop()

    const broken = openNodePostgres(database.url, { max: 1 })
    await broken.close()
    const { log, lines } = capturingLog()
    const failing = createScheduler({ db: broken.db, log, now: clock.now, intervalMs: 10 })
    failing.start()
    await until(async () => lines.filter((l) => l.level === 'error').length >= 3, 5_000)
    await failing.stop()
    const errors = lines.length
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(lines.length, errors, 'no tick after stop()')
  })
})
