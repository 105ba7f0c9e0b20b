/**
 * The task runner in process on real PostgreSQL: lifecycle order, failure policy, remediation,
 * cancellation (queued, running, and an executor that ignores abort), timeout, the transcript,
 * restart recovery, and start/stop serialisation.
 */
import assert from 'node:assert/strict'
import { eq, sql } from '../db/drizzle-orm.ts'
import { after, before, test } from 'node:test'
import { tasks } from '../db/schema/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { classify } from '../compute-host/tasks/error-classes.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import { freePort } from './support/throwaway-postgres.ts'
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

test('a user task fails on a permanent error and gets one remediation task', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle)
  await runner.start()
  try {
    const task = await add(db, 'fail:validation')
    await until(async () => (await row(db, task.id)).state === 'failed')
    const failed = await row(db, task.id)
    assert.equal(failed.attemptCount, 1, 'user work is not replayed after a permanent error')
    assert.equal(failed.lastErrorClass, 'validation')
    const remediations = await db.select().from(tasks).where(eq(tasks.parentTaskId, task.id))
    assert.equal(remediations.length, 1)
    assert.equal(remediations[0]!.kind, 'remediation')
    assert.match(remediations[0]!.prompt, new RegExp(`popagent task ${task.id}`))
    assert.match(remediations[0]!.prompt, /task-resolve/)
    // A second enqueue for the same parent is a no-op.
    const { enqueueRemediation } = await import('../compute-host/tasks/sql/enqueue-remediation.ts')
    await enqueueRemediation(db, failed)
    assert.equal((await db.select().from(tasks).where(eq(tasks.parentTaskId, task.id))).length, 1)
  } finally {
    await runner.stop()
  }
})

test("a remediation's prompt carries the parent's transcript, bounded and redacted", async () => {
  const { db } = database
  const { runner } = startRunner(database.handle)
  await runner.start()
  let parent: Awaited<ReturnType<typeof row>>
  try {
    const task = await add(db, 'record:40')
    await until(async () => (await row(db, task.id)).state === 'completed')
    await until(async () => (await Tasks.activity(db, task.id)).length === 40)
    // The attempt's record stays; its outcome is made a failure to remediate.
    await db
      .update(tasks)
      .set({ state: 'failed', lastErrorClass: 'validation', lastError: 'scripted' })
      .where(eq(tasks.id, task.id))
    parent = await row(db, task.id)
  } finally {
    await runner.stop()
  }
  const { enqueueRemediation } = await import('../compute-host/tasks/sql/enqueue-remediation.ts')
  await enqueueRemediation(db, parent)
  const [remediation] = await db.select().from(tasks).where(eq(tasks.parentTaskId, parent.id))
  const prompt = remediation!.prompt
  assert.match(prompt, /Workflow evidence \(the newest 24 transcript records/)
  assert.match(prompt, /iteration 39/, 'the newest record is there')
  assert.doesNotMatch(prompt, /iteration 15\b/, 'older records beyond the bound are not')
  assert.doesNotMatch(prompt, /SECRET-VALUE-123456/)
  assert.ok(prompt.length < 12_000)
})

test('a transient failure of any source waits with backoff; attempts grow one at a time', async () => {
  const { db } = database
  const { runner, events } = startRunner(database.handle)
  await runner.start()
  try {
    const user = await add(db, 'fail:rate-limit', { maxAttempts: 2 })
    const contained = await add(db, 'fail:database', { source: 'self-update', maxAttempts: 1 })
    await until(async () => (await row(db, user.id)).attemptCount >= 5, 8_000, 'user retries')
    await until(async () => (await row(db, contained.id)).attemptCount >= 5, 8_000, 'retries')
    for (const id of [user.id, contained.id]) {
      const current = await row(db, id)
      assert.ok(['queued', 'running'].includes(current.state), `${id} ${current.state}`)
      assert.equal(current.deadLetteredAt, null)
      // The ceiling moves up with the attempts, one at a time, never below the original.
      assert.ok(current.maxAttempts >= current.attemptCount)
      assert.ok(current.maxAttempts <= Math.max(id === user.id ? 2 : 1, current.attemptCount + 1))
      const stops = events.filter((e) => e.type === 'TaskStop' && e.task.id === id)
      assert.ok(stops.every((e) => e.type === 'TaskStop' && e.outcome === 'failed' && e.willRetry))
      const attempts = stops.map((e) => e.attempt)
      assert.deepEqual(
        attempts,
        attempts.map((_, i) => i + 1),
      )
    }
    // Waiting is visible, with the class and the next attempt's time.
    await until(async () => (await row(db, user.id)).state === 'queued')
    const waiting = await Tasks.get(db, user.id)
    assert.equal(waiting.waiting?.errorClass, 'rate-limit')
    assert.equal(waiting.waiting?.nextAttemptAt, waiting.nextAttemptAt)
    // The owner cancels it as usual.
    for (const id of [user.id, contained.id]) {
      await Tasks.cancel(db, id)
      await until(async () => (await row(db, id)).state === 'cancelled', 5_000, 'cancelled')
      assert.equal((await Tasks.get(db, id)).waiting, null)
    }
  } finally {
    await runner.stop()
  }
})

test('a remediation retries even a permanent failure until it completes', async () => {
  const { db } = database
  const { runner } = startRunner(database.handle)
  await runner.start()
  try {
    const remediation = await add(db, 'fail:validation', { kind: 'remediation', maxAttempts: 1 })
    await until(async () => (await row(db, remediation.id)).attemptCount >= 7, 8_000, 'retries')
    const current = await row(db, remediation.id)
    assert.ok(['queued', 'running'].includes(current.state), current.state)
    await Tasks.cancel(db, remediation.id)
    await until(async () => (await row(db, remediation.id)).state === 'cancelled')
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
  // At its attempt ceiling: an interruption is transient, so the ceiling moves up instead.
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
    await until(async () => (await row(db, exhausted)).state === 'completed', 5_000, 'replayed')
    assert.equal((await row(db, exhausted)).attemptCount, 4)
    assert.equal((await row(db, exhausted)).maxAttempts, 4)
    assert.equal((await row(db, stale)).state, 'failed')
    assert.equal((await row(db, stale)).lastErrorClass, 'stale')
    assert.equal((await row(db, cancelling)).state, 'cancelled')
    const left = await db.select().from(tasks).where(eq(tasks.claimedBy, 'a-dead-runner'))
    assert.equal(left.length, 0, 'nothing stays claimed by the dead runner')
  } finally {
    await runner.stop()
  }
})

test('interrupted work is claimed before work queued after it', async () => {
  const { db } = database
  const { execute, executions } = scriptedExecutor()
  // The interrupted task was due an hour ago and claimed then; newer work arrived since.
  const interrupted = await add(db, 'ok', {
    title: 'interrupted',
    nextAttemptAt: new Date(Date.now() - 60 * 60_000),
  })
  await db
    .update(tasks)
    .set({
      state: 'running',
      claimedBy: 'a-dead-runner',
      claimedAt: sql`now() - interval '10 minutes'`,
      heartbeatAt: sql`now() - interval '10 minutes'`,
      attemptCount: 1,
    })
    .where(eq(tasks.id, interrupted.id))
  const newer: Awaited<ReturnType<typeof add>>[] = []
  for (let i = 0; i < 5; i++) newer.push(await add(db, 'ok', { title: `newer ${i}` }))
  const { runner } = startRunner(database.handle, { execute, timing: { concurrency: 1 } })
  await runner.start()
  try {
    await until(async () => (await row(db, newer.at(-1)!.id)).state === 'completed')
    const ours = executions.filter((id) => id === interrupted.id || newer.some((n) => n.id === id))
    assert.equal(ours[0], interrupted.id, 'the interrupted task ran first')
    const replayed = await row(db, interrupted.id)
    assert.equal(replayed.attemptCount, 2)
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

test('a start that meets a database outage leaves no listener behind and can be tried again', async () => {
  const { db } = database
  // A database nothing answers on: its queries fail as a stopped server's do (ECONNREFUSED).
  const down = openNodePostgres(`postgres://postgres@127.0.0.1:${await freePort()}/down`, {
    max: 1,
  })
  // The runner's queries go to `current`: the stopped database first, then the live one. Its
  // LISTEN connections always reach the live one, so the failed start has something to undo.
  let current: Db = down.db
  const switching = new Proxy({} as Db, { get: (_, key) => Reflect.get(current, key) })
  const listeners = async () =>
    rowsOf<{ n: number }>(
      await db.execute(
        sql`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and query ilike 'listen %'`,
      ),
    )[0]!.n
  const { runner } = startRunner(
    { db: switching, listen: database.handle.listen },
    { timing: { pollIntervalMs: 60_000 } },
  )
  try {
    await assert.rejects(runner.start(), (error) => classify(error) === 'infrastructure')
    assert.equal(await listeners(), 0, 'the failed start stopped listening')
    current = db
    await runner.start()
    assert.equal(await listeners(), 2, 'one wake and one cancel listener, not two of each')
    // Found through the wake-up, not the minute-long poll: the listener of the second start works.
    const task = await add(db, 'ok')
    await until(async () => (await row(db, task.id)).state === 'completed', 5_000, 'wake-up')
  } finally {
    await runner.stop()
    await down.close()
  }
})
