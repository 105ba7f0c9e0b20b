/**
 * `POST /api/schedules/:id/run` and a schedule's `lastTask`, through the edge on a real database:
 * run now queues the same task an occurrence queues (the scheduler fires one here to compare),
 * leaves the schedule's timing alone, meets the self-update gates, and every schedule read names
 * the newest task the schedule queued. The edge needs no compute host for any of it: the host
 * named is a closed port, so the list's timezone is null.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import { eq } from '../db/drizzle-orm.ts'
import { schedules, tasks } from '../db/schema/index.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestApp } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { quietLog } from './support/stack.ts'
import { errorJson, okJson, typedClient } from './support/typed-client.ts'

const API_KEY = 'schedules-run-api-key-0123456789'
// Far from any test's clock: the scheduler below is the only thing that fires, and only when told.
const NEXT_WEEK = () => new Date(Date.now() + 7 * 24 * 3_600_000)

/** A task row without what differs between any two tasks: its id, occurrence and times. */
function withoutTimes(row: typeof tasks.$inferSelect) {
  const { id, occurrenceAt, createdAt, updatedAt, nextAttemptAt, ...rest } = row
  assert.ok(id && createdAt && updatedAt && nextAttemptAt && occurrenceAt !== undefined)
  return rest
}

describe('running a schedule now', () => {
  let database: TestDatabase
  before(async () => {
    database = await createTestDatabase()
  })
  after(() => database.drop())

  const api = () => typedClient(createTestApp({ db: database.db })).api.schedules
  const run = (id: string) => api()[':id'].run.$post({ param: { id } })
  const listed = async (id: string) =>
    (await okJson(await api().$get(), 200)).schedules.find((s) => s.id === id)
  const schedule = (fields: Partial<Schedules.NewSchedule> = {}) =>
    Schedules.create(database.db, {
      workspaceId: 'wsp_default',
      name: 'Morning digest',
      prompt: 'Summarise what changed overnight.',
      model: 'remote/a',
      maxAttempts: 4,
      cron: { expression: '0 9 * * 1', timezone: 'UTC', nextRunAt: NEXT_WEEK() },
      source: 'user',
      ...fields,
    })
  const stored = async (id: string) =>
    (await database.db.select().from(schedules).where(eq(schedules.id, id)))[0]!

  test('run now queues the task an occurrence would, and leaves the timing alone', async () => {
    const made = await schedule()
    assert.equal((await listed(made.id))?.lastTask, null, 'no task yet')
    const before = await stored(made.id)

    const task = await okJson(await run(made.id), 201)
    assert.equal(task.state, 'queued')
    assert.deepEqual(
      [task.source, task.workspaceId, task.title, task.prompt, task.model, task.maxAttempts],
      ['user', 'wsp_default', 'Morning digest', 'Summarise what changed overnight.', 'remote/a', 4],
    )
    assert.equal(task.scheduleId, made.id)
    assert.equal(task.occurrenceAt, null, 'run now is no occurrence')
    const after = await stored(made.id)
    assert.deepEqual(
      [after.nextRunAt, after.lastFiredAt, after.updatedAt],
      [before.nextRunAt, before.lastFiredAt, before.updatedAt],
    )
    const last = await listed(made.id)
    assert.deepEqual(last?.lastTask, { id: task.id, state: 'queued', createdAt: task.createdAt })

    // The scheduler's own occurrence of the same schedule: the same task but for the occurrence.
    const due = new Date(Date.now() - 60_000)
    await database.db.update(schedules).set({ nextRunAt: due }).where(eq(schedules.id, made.id))
    const scheduler = createScheduler({ db: database.db, log: quietLog(), timezone: 'UTC' })
    assert.equal(await scheduler.tick(), 1)
    const rows = await database.db.select().from(tasks).where(eq(tasks.scheduleId, made.id))
    const fired = rows.find((row) => row.id !== task.id)!
    const ran = rows.find((row) => row.id === task.id)!
    assert.equal(fired.occurrenceAt?.toISOString(), due.toISOString())
    assert.deepEqual(withoutTimes(ran), withoutTimes(fired))

    // The newest task is the last run, whichever way it was queued.
    assert.equal((await listed(made.id))?.lastTask?.id, fired.id)
    await database.db.delete(tasks).where(eq(tasks.id, fired.id))
    assert.equal((await listed(made.id))?.lastTask?.id, task.id, 'the one before, once deleted')
  })

  test('a disabled schedule runs too, and stays without a next run', async () => {
    const paused = await schedule({ name: 'Paused digest', enabled: false })
    const task = await okJson(await run(paused.id), 201)
    assert.equal(task.title, 'Paused digest')
    const after = await listed(paused.id)
    assert.equal(after?.enabled, false)
    assert.equal(after?.nextRunAt, null)
    assert.equal(after?.lastTask?.id, task.id)
  })

  test('a patch answers with the last task too', async () => {
    const made = await schedule({ name: 'Patched digest' })
    const task = await okJson(await run(made.id), 201)
    const patched = await okJson(
      await api()[':id'].$patch({ param: { id: made.id }, json: { name: 'Renamed digest' } }),
      200,
    )
    assert.equal(patched.lastTask?.id, task.id)
  })

  test('a self-update schedule runs only while self-update is on, and one at a time', async () => {
    const workspace = await Workspaces.create(database.db, { name: 'su-ws', path: 'su-ws' })
    const system = await schedule({
      workspaceId: workspace.id,
      name: 'Self-update',
      source: 'self-update',
    })
    const count = async () =>
      (await database.db.select().from(tasks).where(eq(tasks.scheduleId, system.id))).length
    const off = await errorJson(await run(system.id), 409)
    assert.equal(off.error.code, 'SELF_UPDATE_OFF')
    assert.equal(await count(), 0)

    await Settings.autonomy.patch(database.db, { selfUpdateEnabled: true })
    const task = await okJson(await run(system.id), 201)
    assert.equal(task.source, 'self-update')
    const second = await errorJson(await run(system.id), 409)
    assert.equal(second.error.code, 'AUTONOMOUS_TASK_ACTIVE')
    assert.equal(await count(), 1)
  })

  test('a missing schedule is a 404, a malformed id a 400', async () => {
    const missing = await errorJson(await run('sch_00000000000000000000000000'), 404)
    assert.equal(missing.error.code, 'SCHEDULE_NOT_FOUND')
    await errorJson(await run('not-a-schedule'), 400)
  })

  test('with an API key configured the route needs it', async () => {
    const made = await schedule({ name: 'Keyed digest' })
    const edge = createTestApp({ db: database.db, apiKey: API_KEY })
    const path = `/api/schedules/${made.id}/run`
    assert.equal((await edge.request(path, { method: 'POST' })).status, 401)
    const wrong = { 'x-popagent-key': 'wrong-key-0123456789abcdef' }
    assert.equal((await edge.request(path, { method: 'POST', headers: wrong })).status, 401)
    const right = { 'x-popagent-key': API_KEY }
    assert.equal((await edge.request(path, { method: 'POST', headers: right })).status, 201)
  })
})
