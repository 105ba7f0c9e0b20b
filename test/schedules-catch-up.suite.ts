/**
 * Missed occurrences, written once and run on real PostgreSQL (schedules-catch-up.postgres.test.ts)
 * and on the embedded database (schedules-catch-up.embedded.test.ts): the scheduler on a clock the
 * tests move, and what the owner reads through the API (`GET /api/schedules/:id/history` and the
 * schedule's `skippedCount`). Expected occurrences come from croner itself.
 */
import assert from 'node:assert/strict'
import { Cron } from 'croner'
import { after, before, beforeEach, describe, test } from 'node:test'
import { createLogger } from '../compute-host/log.ts'
import { previewCron } from '../compute-host/schedules/cron.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import { asc, eq, sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { scheduleFires, schedules, tasks } from '../db/schema/index.ts'
import type { TaskSource } from '../db/schema/tasks.ts'
import type { ScheduleCatchUp } from '../runtime/contracts/schedules.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import { enqueue } from '../runtime/tasks/index.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'

type Request = (path: string, init?: RequestInit) => Response | Promise<Response>
export type CatchUpContext = { db: Db; request: Request; close: () => Promise<void> }

const MINUTE = 60_000
const MISSED = 'missed: no host was running'

function testClock(start: string) {
  let current = new Date(start).getTime()
  return {
    now: () => new Date(current),
    advance: (ms: number) => void (current += ms),
    set: (iso: string) => void (current = new Date(iso).getTime()),
  }
}

/** croner's own occurrences in (from, to], oldest first. */
function cronerOccurrences(cron: string, from: Date, to: Date): string[] {
  const out: string[] = []
  for (const at of new Cron(cron, { mode: '5-part' }).enumerate(from)) {
    if (at > to) break
    out.push(at.toISOString())
  }
  return out
}

/** An error (or the driver error drizzle wraps) naming the check constraint. */
const violates = (constraint: string) => (error: unknown) => {
  const cause = (error as { cause?: { message?: string } }).cause
  return `${(error as Error).message} ${cause?.message}`.includes(constraint)
}

export function scheduleCatchUpSuite(name: string, setup: () => Promise<CatchUpContext>) {
  describe(name, () => {
    let ctx: CatchUpContext
    let api: Client['api']['schedules']
    before(async () => {
      ctx = await setup()
      api = typedClient(ctx).api.schedules
    })
    after(() => ctx.close())
    beforeEach(() => ctx.db.delete(schedules))

    const logged: Record<string, any>[] = []
    const log = createLogger({ secrets: [], write: (line) => void logged.push(JSON.parse(line)) })

    async function addSchedule(now: Date, cron: string, source: TaskSource = 'user') {
      return Schedules.create(ctx.db, {
        workspaceId: 'wsp_default',
        name: `every ${cron}`,
        prompt: `run for ${cron}`,
        cron: Schedules.checkedCron(cron, previewCron(cron, { now })),
        source,
      })
    }
    const setCatchUp = async (id: string, catchUp: ScheduleCatchUp) => {
      const patched = await okJson(await api[':id'].$patch({ param: { id }, json: { catchUp } }))
      assert.equal(patched.catchUp, catchUp)
    }
    const history = async (id: string, limit?: number) =>
      (
        await okJson(
          await api[':id'].history.$get({
            param: { id },
            query: limit === undefined ? {} : { limit: String(limit) },
          }),
        )
      ).history
    const listed = async (id: string) =>
      (await okJson(await api.$get())).schedules.find((s) => s.id === id)!
    const tasksOf = (id: string) =>
      ctx.db.select().from(tasks).where(eq(tasks.scheduleId, id)).orderBy(asc(tasks.occurrenceAt))

    test('a schedule whose hosts were down for 8 of its occurrences fires the latest and shows the other 7 skipped in its history', async () => {
      const clock = testClock('2030-07-01T10:03:00Z')
      const schedule = await addSchedule(clock.now(), '*/15 * * * *')
      assert.equal(schedule.catchUp, 'latest', 'the default')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      clock.advance(125 * MINUTE)
      const missed = cronerOccurrences(schedule.cron, new Date('2030-07-01T10:03:00Z'), clock.now())
      assert.equal(missed.length, 8)
      assert.equal(await scheduler.tick(), 1)
      assert.equal(await scheduler.tick(), 0)

      const [task] = await tasksOf(schedule.id)
      const shown = await history(schedule.id)
      assert.deepEqual(
        shown.map((o) => [o.occurrenceAt, o.outcome, o.reason, o.taskId]),
        [
          [missed[7], 'fired', null, task!.id],
          ...missed
            .slice(0, 7)
            .reverse()
            .map((at) => [at, 'skipped', MISSED, null]),
        ],
        'newest first',
      )
      const view = await listed(schedule.id)
      assert.equal(view.skippedCount, 7)
      assert.equal(view.lastFiredAt, missed[7])
      assert.equal(view.lastTask?.id, task!.id)
    })

    test("with catch-up 'each' every one of the 8 missed occurrences fires, one task each", async () => {
      const clock = testClock('2030-07-01T10:03:00Z')
      const schedule = await addSchedule(clock.now(), '*/15 * * * *')
      await setCatchUp(schedule.id, 'each')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      clock.advance(125 * MINUTE)
      const missed = cronerOccurrences(schedule.cron, new Date('2030-07-01T10:03:00Z'), clock.now())
      assert.equal(await scheduler.tick(), 8)
      const made = await tasksOf(schedule.id)
      assert.deepEqual(
        made.map((t) => t.occurrenceAt!.toISOString()),
        missed,
      )
      const shown = await history(schedule.id)
      assert.deepEqual(
        shown.map((o) => [o.occurrenceAt, o.outcome, o.taskId]),
        made.map((t) => [t.occurrenceAt!.toISOString(), 'fired', t.id]).reverse(),
      )
      const view = await listed(schedule.id)
      assert.equal(view.skippedCount, 0)
      assert.equal(view.lastFiredAt, missed[7])
    })

    test("'each' fires only the newest 24 of a longer outage and records the older ones skipped", async () => {
      const clock = testClock('2030-07-01T10:03:00Z')
      const schedule = await addSchedule(clock.now(), '*/5 * * * *')
      await setCatchUp(schedule.id, 'each')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      clock.advance(149 * MINUTE)
      const missed = cronerOccurrences(schedule.cron, new Date('2030-07-01T10:03:00Z'), clock.now())
      assert.equal(missed.length, 30)
      assert.equal(await scheduler.tick(), 24)
      assert.deepEqual(
        (await tasksOf(schedule.id)).map((t) => t.occurrenceAt!.toISOString()),
        missed.slice(6),
      )
      const skipped = (await history(schedule.id)).filter((o) => o.outcome === 'skipped')
      assert.deepEqual(
        skipped.map((o) => [o.occurrenceAt, o.reason]),
        missed
          .slice(0, 6)
          .reverse()
          .map((at) => [at, 'missed: beyond the catch-up bound (24)']),
      )
      assert.equal((await listed(schedule.id)).skippedCount, 6)
    })

    test("'none' fires none of 8 missed occurrences and records all 8 skipped; within a minute of its time an occurrence still fires", async () => {
      const clock = testClock('2030-07-01T10:03:00Z')
      const schedule = await addSchedule(clock.now(), '*/15 * * * *')
      await setCatchUp(schedule.id, 'none')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      clock.advance(125 * MINUTE)
      const missed = cronerOccurrences(schedule.cron, new Date('2030-07-01T10:03:00Z'), clock.now())
      assert.equal(missed.length, 8)
      assert.equal(await scheduler.tick(), 0)
      assert.equal((await tasksOf(schedule.id)).length, 0)
      const late = 'missed: more than 60 s late (catch-up: none)'
      assert.deepEqual(
        (await history(schedule.id)).map((o) => [o.occurrenceAt, o.outcome, o.reason, o.taskId]),
        missed.reverse().map((at) => [at, 'skipped', late, null]),
      )
      const view = await listed(schedule.id)
      assert.equal(view.skippedCount, 8)
      assert.equal(view.lastFiredAt, null, 'nothing became a task')

      // 12:15 seen 45 s late fires; 12:30 seen 90 s late does not.
      clock.set('2030-07-01T12:15:45Z')
      assert.equal(await scheduler.tick(), 1)
      clock.set('2030-07-01T12:31:30Z')
      assert.equal(await scheduler.tick(), 0)
      const [newest, fired] = await history(schedule.id, 2)
      assert.deepEqual(
        [newest!.occurrenceAt, newest!.outcome, newest!.reason],
        ['2030-07-01T12:30:00.000Z', 'skipped', late],
      )
      assert.deepEqual([fired!.occurrenceAt, fired!.outcome], ['2030-07-01T12:15:00.000Z', 'fired'])
    })

    test('occurrences the self-update gate refuses are recorded skipped with the reason', async () => {
      const clock = testClock('2030-07-01T10:03:00Z')
      const schedule = await addSchedule(clock.now(), '0 * * * *', 'self-update')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      await Settings.autonomy.patch(ctx.db, { selfUpdateEnabled: false })
      try {
        clock.set('2030-07-01T11:00:01Z')
        assert.equal(await scheduler.tick(), 0)
        await Settings.autonomy.patch(ctx.db, { selfUpdateEnabled: true })
        const active = await enqueue(ctx.db, {
          source: 'self-update',
          workspaceId: 'wsp_default',
          title: 'already running',
          prompt: 'improve',
        })
        clock.set('2030-07-01T12:00:01Z')
        assert.equal(await scheduler.tick(), 0)
        await ctx.db.update(tasks).set({ state: 'completed' }).where(eq(tasks.id, active.id))
        clock.set('2030-07-01T13:00:01Z')
        assert.equal(await scheduler.tick(), 1)
        const [task] = await tasksOf(schedule.id)
        assert.deepEqual(
          (await history(schedule.id)).map((o) => [o.occurrenceAt, o.outcome, o.reason, o.taskId]),
          [
            ['2030-07-01T13:00:00.000Z', 'fired', null, task!.id],
            [
              '2030-07-01T12:00:00.000Z',
              'skipped',
              'an autonomous task (self-update or build-maintenance) was already active',
              null,
            ],
            ['2030-07-01T11:00:00.000Z', 'skipped', 'self-update is off', null],
          ],
        )
        const view = await listed(schedule.id)
        assert.equal(view.skippedCount, 2)
        assert.equal(view.lastFiredAt, '2030-07-01T13:00:00.000Z', 'only a fire moves lastFiredAt')
      } finally {
        await Settings.autonomy.patch(ctx.db, { selfUpdateEnabled: false })
        await ctx.db.update(tasks).set({ state: 'completed' }).where(eq(tasks.state, 'queued'))
      }
    })

    test('a day missed by a per-minute schedule records its newest 1,000 occurrences and counts the older ones', async () => {
      const start = '2030-07-01T00:00:30Z'
      const clock = testClock(start)
      const schedule = await addSchedule(clock.now(), '* * * * *')
      const scheduler = createScheduler({ db: ctx.db, log, now: clock.now })
      clock.advance(24 * 60 * MINUTE)
      const missed = cronerOccurrences(schedule.cron, new Date(start), clock.now())
      assert.equal(missed.length, 1440)
      logged.length = 0
      assert.equal(await scheduler.tick(), 1)
      const rows = await ctx.db
        .select()
        .from(scheduleFires)
        .where(eq(scheduleFires.scheduleId, schedule.id))
        .orderBy(asc(scheduleFires.occurrenceAt))
      assert.deepEqual(
        rows.map((r) => r.occurrenceAt.toISOString()),
        missed.slice(-1000),
      )
      assert.equal(rows[0]!.reason, `${MISSED} (and 440 earlier, not recorded)`)
      assert.ok(rows.slice(1, -1).every((r) => r.outcome === 'skipped' && r.reason === MISSED))
      assert.equal(rows.at(-1)!.outcome, 'fired')
      const warning = logged.find((l) => l.message.startsWith('schedule caught up'))
      assert.equal(warning?.skipped, 1439)
      assert.equal(warning?.recorded, 999)
      assert.equal((await listed(schedule.id)).skippedCount, 999)

      // The history answer is bounded: 200 at most, 50 unless asked.
      assert.equal((await history(schedule.id)).length, 50)
      const most = await history(schedule.id, 200)
      assert.equal(most.length, 200)
      assert.equal(most[0]!.occurrenceAt, missed.at(-1))
      const over = await api[':id'].history.$get({
        param: { id: schedule.id },
        query: { limit: '201' },
      })
      assert.equal((await errorJson(over, 400)).error.code, 'VALIDATION_FAILED')
    })

    test('the history of an unknown schedule is a 404', async () => {
      const res = await api[':id'].history.$get({
        param: { id: 'sch_00000000000000000000000000' },
        query: {},
      })
      assert.equal((await errorJson(res, 404)).error.code, 'SCHEDULE_NOT_FOUND')
    })

    test('the database refuses a catch-up outside the three, a skip without a reason and a fire without a task', async () => {
      const schedule = await addSchedule(new Date('2030-07-01T00:00:00Z'), '0 * * * *')
      await assert.rejects(
        ctx.db.execute(
          sql`update ${schedules} set catch_up = 'sometimes' where id = ${schedule.id}`,
        ),
        violates('popagent_agent_schedules_catch_up'),
      )
      const at = new Date('2030-07-01T01:00:00Z')
      for (const row of [
        { outcome: 'skipped' as const, reason: null, taskId: null },
        { outcome: 'skipped' as const, reason: 'why', taskId: 'tsk_1' },
        { outcome: 'fired' as const, reason: null, taskId: null },
      ]) {
        await assert.rejects(
          ctx.db
            .insert(scheduleFires)
            .values({ scheduleId: schedule.id, occurrenceAt: at, ...row }),
          violates('popagent_agent_schedule_fires_shape'),
          JSON.stringify(row),
        )
      }
    })
  })
}
