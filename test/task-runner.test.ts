/**
 * The task runner in process on real PostgreSQL: lifecycle order, failure policy, remediation,
 * cancellation (queued, running, and an executor that ignores abort), timeout, the transcript,
 * restart recovery, and start/stop serialisation.
 */
import assert from 'node:assert/strict'
import { eq, sql } from 'drizzle-orm'
import { after, before, test } from 'node:test'
import { tasks } from '../db/schema/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { add, row, scriptedExecutor, startRunner, until } from './support/task-runner.ts'

let database: TestDatabase
before(async () => {
  database = await createTestDatabase()
})
after(() => database.drop())

test('a task runs once; TaskStop is delivered after the completion is committed', async () => {
  const { db } = database
  const seen: string[] = []
  const { runner, events, lines } = startRunner(database.handle, {
    observers: [
      async (event) => {
        if (event.type === 'TaskStop') seen.push((await row(db, event.task.id)).state)
      },
      () => {
        throw new Error('a broken observer')
      },
    ],
  })
  await runner.start()
  try {
    const task = await add(db, 'ok')
    await until(async () => (await row(db, task.id)).state === 'completed', 5_000, 'completion')
    await until(() => events.some((e) => e.type === 'TaskStop'))
    const done = await row(db, task.id)
    assert.equal(done.attemptCount, 1)
    assert.equal(done.result, `done ${task.id}`)
    assert.equal(seen[0], 'completed', 'the observer saw the committed state')
    const start = events.find((e) => e.type === 'TaskStart')!
    const stop = events.find((e) => e.type === 'TaskStop')!
    assert.ok(events.indexOf(start) < events.indexOf(stop))
    assert.equal(start.turnId, stop.turnId)
    assert.equal(start.traceId, done.traceId)
    assert.match(start.turnId, /^trn_/)
    assert.ok(
      lines.some((l) => l.includes('task observer failed')),
      'observer failure logged',
    )
    assert.equal(done.state, 'completed', 'an observer failure changes no state')
  } finally {
    await runner.stop()
  }
})

test('a user task fails after an execution error and gets one remediation task', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle)
  await runner.start()
  try {
    const task = await add(db, 'fail:provider')
    await until(async () => (await row(db, task.id)).state === 'failed')
    const failed = await row(db, task.id)
    assert.equal(failed.attemptCount, 1, 'user work is not replayed')
    assert.equal(failed.lastErrorClass, 'provider')
    const remediations = await db.select().from(tasks).where(eq(tasks.parentTaskId, task.id))
    assert.equal(remediations.length, 1)
    assert.equal(remediations[0]!.kind, 'remediation')
    assert.match(remediations[0]!.prompt, new RegExp(`popagent task ${task.id}`))
    assert.match(remediations[0]!.prompt, /task-resolve/)
    // A second enqueue for the same parent is a no-op.
    const { enqueueRemediation } = await import('../compute-host/tasks/queue.ts')
    await enqueueRemediation(db, failed)
    assert.equal((await db.select().from(tasks).where(eq(tasks.parentTaskId, task.id))).length, 1)
  } finally {
    await runner.stop()
  }
})

test('contained work retries transient failures with backoff, then dead-letters', async () => {
  const { db } = database
  const { runner, events } = startRunner(database.handle)
  await runner.start()
  try {
    const task = await add(db, 'fail:rate-limit', { source: 'self-update', maxAttempts: 3 })
    await until(async () => (await row(db, task.id)).state === 'dead-letter', 8_000, 'dead-letter')
    const dead = await row(db, task.id)
    assert.equal(dead.attemptCount, 3)
    assert.ok(dead.deadLetteredAt)
    const stops = events.filter((e) => e.type === 'TaskStop' && e.task.id === task.id)
    assert.deepEqual(
      stops.map((e) => e.type === 'TaskStop' && [e.outcome, e.willRetry]),
      [
        ['failed', true],
        ['failed', true],
        ['dead-letter', false],
      ],
    )
    // Each retry's TaskStop comes before the next attempt's TaskStart.
    const own = events.filter((e) => e.task.id === task.id && e.type !== 'dead-letter')
    assert.deepEqual(
      own.map((e) => e.type),
      ['TaskStart', 'TaskStop', 'TaskStart', 'TaskStop', 'TaskStart', 'TaskStop'],
    )
    assert.ok(events.some((e) => e.type === 'dead-letter' && e.task.id === task.id))
    // A permanent class is not retried even for contained work.
    const denied = await add(db, 'fail:containment', { source: 'self-update' })
    await until(async () => (await row(db, denied.id)).state === 'failed')
    assert.equal((await row(db, denied.id)).attemptCount, 1)
  } finally {
    await runner.stop()
  }
})

test('cancellation: queued at once; running after the executor settles', async () => {
  const { db } = database
  const executor = scriptedExecutor()
  const { runner, events } = startRunner(database.handle, { execute: executor.execute })
  const queued = await add(db, 'ok', { nextAttemptAt: new Date(Date.now() + 60_000) })
  assert.equal((await Tasks.cancel(db, queued.id)).state, 'cancelled')
  await runner.start()
  try {
    const hanging = await add(db, 'hang')
    await until(async () => (await row(db, hanging.id)).state === 'running')
    const marked = await Tasks.cancel(db, hanging.id)
    assert.equal(marked.state, 'cancelling')
    await until(async () => (await row(db, hanging.id)).state === 'cancelled', 5_000, 'cancelled')
    assert.ok(!executor.executions.includes(queued.id), 'the cancelled queued task never ran')
    const stop = events.find((e) => e.type === 'TaskStop' && e.task.id === hanging.id)
    assert.equal(stop?.type === 'TaskStop' && stop.outcome, 'cancelled')
    await assert.rejects(Tasks.cancel(db, hanging.id), /already finished/)
  } finally {
    await runner.stop()
  }
})

test('an executor that ignores abort keeps its slot and its row until it settles', async () => {
  const { db } = database
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  const executor = scriptedExecutor({ released })
  const { runner, events } = startRunner(database.handle, {
    execute: executor.execute,
    timing: { concurrency: 1 },
  })
  await runner.start()
  try {
    const stubborn = await add(db, 'ignore')
    await until(async () => (await row(db, stubborn.id)).state === 'running')
    await Tasks.cancel(db, stubborn.id)
    await until(() => events.some((e) => e.type === 'interrupted'), 5_000, 'interrupted')
    const waiting = await add(db, 'ok')
    await new Promise((r) => setTimeout(r, 600))
    assert.equal(
      (await row(db, stubborn.id)).state,
      'cancelling',
      'not cancelled before it settles',
    )
    assert.equal((await row(db, waiting.id)).state, 'queued', 'the slot stays held')
    assert.equal(runner.active, 1)
    release()
    await until(async () => (await row(db, stubborn.id)).state === 'cancelled')
    await until(async () => (await row(db, waiting.id)).state === 'completed')
  } finally {
    release()
    await runner.stop()
  }
})

test('a timed-out user task fails with the timeout class', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle, { timing: { timeoutMs: 200 } })
  await runner.start()
  try {
    const task = await add(db, 'hang')
    await until(async () => (await row(db, task.id)).state === 'failed', 5_000, 'failed')
    assert.equal((await row(db, task.id)).lastErrorClass, 'timeout')
  } finally {
    await runner.stop()
  }
})

test('the transcript keeps the newest 256 records, with secrets redacted', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle)
  await runner.start()
  try {
    const task = await add(db, 'record:300')
    await until(async () => (await row(db, task.id)).state === 'completed')
    const kept = await Tasks.activity(db, task.id)
    assert.equal(kept.length, 256)
    assert.equal(kept[0]!.record.step, 44)
    assert.equal(kept.at(-1)!.record.step, 299)
    assert.ok(!JSON.stringify(kept).includes('SECRET-VALUE-123456'))
    assert.match(String(kept[0]!.record.text), /\[REDACTED\]/)
  } finally {
    await runner.stop()
  }
})

test('restart recovery follows the rules and keeps what the task was', async () => {
  const { db } = database
  const abandoned = async (prompt: string, values: Record<string, unknown>) => {
    const task = await add(db, prompt, { sessionId: null, model: 'remote/a' })
    await db
      .update(tasks)
      .set({
        state: 'running',
        claimedBy: 'a-dead-runner',
        claimedAt: sql`now() - interval '5 minutes'`,
        heartbeatAt: sql`now() - interval '5 minutes'`,
        attemptCount: 1,
        ...values,
      })
      .where(eq(tasks.id, task.id))
    return task.id
  }
  const requeue = await abandoned('sleep:1', {})
  const exhausted = await abandoned('ok', { attemptCount: 3, maxAttempts: 3 })
  const stale = await abandoned('ok', {
    claimedAt: sql`now() - interval '3 hours'`,
  })
  const cancelling = await abandoned('ok', { state: 'cancelling' })
  const { runner } = startRunner(database.handle, { timing: { staleAfterMs: 2 * 60 * 60_000 } })
  await runner.start()
  try {
    await until(async () => (await row(db, requeue)).state === 'completed', 5_000, 'requeued run')
    const rerun = await row(db, requeue)
    assert.equal(rerun.attemptCount, 2)
    assert.equal(rerun.model, 'remote/a')
    assert.equal(rerun.prompt, 'sleep:1')
    assert.equal((await row(db, exhausted)).state, 'dead-letter')
    assert.equal((await row(db, stale)).state, 'failed')
    assert.equal((await row(db, stale)).lastErrorClass, 'stale')
    assert.equal((await row(db, cancelling)).state, 'cancelled')
    const left = await db.select().from(tasks).where(eq(tasks.claimedBy, 'a-dead-runner'))
    assert.equal(left.length, 0, 'nothing stays claimed by the dead runner')
  } finally {
    await runner.stop()
  }
})

test('a stop during start lets the recovery pass finish and runs nothing after', async () => {
  const { db } = database
  const executor = scriptedExecutor()
  const orphan = await add(db, 'ok')
  await db
    .update(tasks)
    .set({ state: 'cancelling', claimedBy: 'gone', heartbeatAt: sql`now() - interval '1 hour'` })
    .where(eq(tasks.id, orphan.id))
  const { runner } = startRunner(database.handle, { execute: executor.execute })
  const starting = runner.start()
  const stopping = runner.stop()
  await Promise.all([starting, stopping])
  assert.equal((await row(db, orphan.id)).state, 'cancelled', 'the recovery pass ran')
  const later = await add(db, 'ok')
  await new Promise((r) => setTimeout(r, 500))
  assert.equal((await row(db, later.id)).state, 'queued', 'nothing was claimed after the stop')
  assert.equal(executor.executions.length, 0)
  // And it can start again.
  const again = startRunner(database.handle)
  await again.runner.start()
  await until(async () => (await row(db, later.id)).state === 'completed')
  await again.runner.stop()
})

test('a wake-up starts new work long before the next poll', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle, { timing: { pollIntervalMs: 60_000 } })
  await runner.start()
  try {
    const latencies: number[] = []
    for (let i = 0; i < 20; i++) {
      const started = Date.now()
      const task = await add(db, 'ok')
      await until(async () => (await row(db, task.id)).state === 'completed', 5_000, 'wake-up')
      latencies.push(Date.now() - started)
    }
    assert.ok(Math.max(...latencies) < 5_000, `latencies ${latencies.join(',')}`)
  } finally {
    await runner.stop()
  }
})
