/**
 * The task runner on the embedded database (PGlite, as `npm start` runs it): claims, LISTEN
 * wake-ups, cancellation of running work and transient retries all work on its single session.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import * as Tasks from '../runtime/tasks/index.ts'
import { createEmbeddedDatabase } from './support/database.ts'
import { add, row, startRunner, until } from './support/task-runner.ts'

test('the runner works on PGlite', async () => {
  const database = await createEmbeddedDatabase()
  const { runner, events } = startRunner(database.handle, { timing: { pollIntervalMs: 60_000 } })
  await runner.start()
  try {
    const done = await add(database.db, 'ok')
    await until(async () => (await row(database.db, done.id)).state === 'completed', 5_000, 'wake')
    const hanging = await add(database.db, 'hang')
    await until(async () => (await row(database.db, hanging.id)).state === 'running')
    await Tasks.cancel(database.db, hanging.id)
    await until(async () => (await row(database.db, hanging.id)).state === 'cancelled')
    // A transient failure waits and retries past its first ceiling, which follows it.
    const retried = await add(database.db, 'fail:database', { source: 'build-maintenance' })
    await until(async () => (await row(database.db, retried.id)).attemptCount >= 4, 8_000)
    const waiting = await row(database.db, retried.id)
    assert.ok(waiting.maxAttempts >= waiting.attemptCount)
    assert.equal(waiting.deadLetteredAt, null)
    assert.ok(events.every((e) => e.type !== 'dead-letter'))
    await Tasks.cancel(database.db, retried.id)
    await until(async () => (await row(database.db, retried.id)).state === 'cancelled')
  } finally {
    await runner.stop()
    await database.close()
  }
})
