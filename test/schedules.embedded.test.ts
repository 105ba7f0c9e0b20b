/**
 * `npm start` runs on PGlite in process: the scheduler's transaction, advisory lock and row locks
 * must work there as on a PostgreSQL server (test/schedules.test.ts covers the server).
 */
import assert from 'node:assert/strict'
import { Cron } from 'croner'
import { eq } from '../db/drizzle-orm.ts'
import { test } from 'node:test'
import { createLogger } from '../compute-host/log.ts'
import { previewCron } from '../compute-host/schedules/cron.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import { tasks } from '../db/schema/index.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import { createEmbeddedDatabase } from './support/database.ts'

test('the scheduler materialises occurrences on the embedded database', async () => {
  const database = await createEmbeddedDatabase()
  try {
    const start = new Date('2030-08-01T00:00:10Z')
    let now = start
    const cron = '*/15 * * * *'
    const schedule = await Schedules.create(database.db, {
      workspaceId: 'wsp_default',
      name: 'embedded',
      prompt: 'p',
      maxAttempts: 6,
      cron: Schedules.checkedCron(cron, previewCron(cron, { now })),
      source: 'user',
    })
    const log = createLogger({ secrets: [], write: () => {} })
    const scheduler = createScheduler({ db: database.db, log, now: () => now })
    now = new Date(start.getTime() + 31 * 60_000)
    assert.equal(await scheduler.tick(), 1)
    assert.equal(await scheduler.tick(), 0)
    const made = await database.db.select().from(tasks).where(eq(tasks.scheduleId, schedule.id))
    assert.equal(made.length, 1)
    assert.equal(made[0]!.maxAttempts, 6)
    // The latest overdue occurrence (catch-up), as croner counts them.
    assert.deepEqual(made[0]!.occurrenceAt, new Cron(cron).previousRuns(1, now)[0])
  } finally {
    await database.close()
  }
})
