/**
 * Runners as separate processes on one queue: two of them share 5,000 tasks and each task runs
 * exactly once; a runner killed with SIGKILL mid-task is recovered by a new one with nothing left
 * `running` and nothing run twice at once; a PostgreSQL restart mid-run is survived and every
 * task finishes.
 */
import assert from 'node:assert/strict'
import { count, eq, sql } from '../db/drizzle-orm.ts'
import { test } from 'node:test'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { tasks } from '../db/schema/index.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import { createId } from '../runtime/ids.ts'
import { createTestDatabase } from './support/database.ts'
import { overlaps, spawnRunner, type RunnerChild } from './support/runner-child.ts'
import { userTask, until } from './support/task-runner.ts'
import { startThrowawayPostgres } from './support/throwaway-postgres.ts'

async function addMany(db: Db, n: number, prompt: string) {
  for (let i = 0; i < n; i += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, n - i) }, () => ({
      id: createId('task'),
      ...userTask(prompt),
    }))
    await db.insert(tasks).values(rows)
  }
}

const stateCounts = async (db: Db) =>
  Object.fromEntries(
    (await db.select({ state: tasks.state, n: count() }).from(tasks).groupBy(tasks.state)).map(
      (r) => [r.state, r.n],
    ),
  )

async function stopAll(runners: RunnerChild[]) {
  for (const r of runners) r.child.kill('SIGTERM')
  await Promise.all(runners.map((r) => r.exited))
}

test('two runner processes complete 5,000 tasks, each exactly once', async () => {
  const database = await createTestDatabase()
  const env = { DATABASE_URL: database.url, CONCURRENCY: '16', POLL_MS: '1000' }
  const runners = [await spawnRunner('runner-a', env), await spawnRunner('runner-b', env)]
  try {
    const started = Date.now()
    await addMany(database.db, 5_000, 'ok')
    await until(
      async () => (await stateCounts(database.db)).completed === 5_000,
      90_000,
      'all completed',
    )
    const elapsed = Date.now() - started
    const executions = runners.flatMap((r) => r.executions)
    const perTask = new Map<string, number>()
    for (const e of executions) perTask.set(e.task, (perTask.get(e.task) ?? 0) + 1)
    assert.equal(perTask.size, 5_000)
    assert.ok(
      [...perTask.values()].every((n) => n === 1),
      'a task ran twice',
    )
    for (const r of runners) assert.ok(r.executions.length > 0, `${r.id} did no work`)
    const [attempts] = await database.db
      .select({ max: sql<number>`max(${tasks.attemptCount})` })
      .from(tasks)
    assert.equal(Number(attempts!.max), 1)
    console.log(
      `5,000 tasks in ${elapsed} ms (${Math.round(5_000 / (elapsed / 1000))}/s); ` +
        runners.map((r) => `${r.id} ran ${r.executions.length}`).join(', '),
    )
  } finally {
    await stopAll(runners)
    await database.drop()
  }
})

test('a runner killed mid-task is recovered by a new one; nothing runs twice at once', async () => {
  const database = await createTestDatabase()
  const env = { DATABASE_URL: database.url, CONCURRENCY: '4', LEASE_MS: '1000', POLL_MS: '200' }
  await addMany(database.db, 24, 'sleep:300')
  const first = await spawnRunner('runner-killed', env)
  let second: RunnerChild | undefined
  try {
    await until(() => first.executions.filter((e) => e.end).length >= 4, 20_000, 'some work')
    await until(() => first.executions.some((e) => !e.end), 5_000, 'a task in flight')
    first.child.kill('SIGKILL')
    const killedAt = Date.now()
    await first.exited
    const interrupted = first.executions.filter((e) => !e.end)
    for (const e of interrupted) e.end = killedAt
    assert.ok(interrupted.length > 0)
    second = await spawnRunner('runner-new', env)
    await until(
      async () => (await stateCounts(database.db)).completed === 24,
      30_000,
      'all completed after recovery',
    )
    const counts = await stateCounts(database.db)
    assert.equal(counts.running ?? 0, 0, 'nothing stays running')
    const executions = [...first.executions, ...second.executions]
    assert.deepEqual(overlaps(executions), [], 'a task ran twice at once')
    for (const e of interrupted) {
      const [row] = await database.db.select().from(tasks).where(eq(tasks.id, e.task))
      assert.equal(row!.attemptCount, 2, 'the interrupted attempt was counted, then retried')
      const rerun = second.executions.find((x) => x.task === e.task)!
      console.log(`recovered ${e.task} ${rerun.start - killedAt} ms after the kill`)
    }
  } finally {
    await stopAll(second ? [second] : [])
    await database.drop()
  }
})

test('a PostgreSQL restart mid-run is survived; every task finishes', async () => {
  const server = await startThrowawayPostgres()
  const handle = openNodePostgres(server.url, { max: 2 })
  let runners: RunnerChild[] = []
  try {
    await migrateDatabase(handle)
    const env = { DATABASE_URL: server.url, CONCURRENCY: '4', LEASE_MS: '3000', POLL_MS: '200' }
    runners = [await spawnRunner('runner-1', env), await spawnRunner('runner-2', env)]
    await addMany(handle.db, 200, 'sleep:30')
    await until(() => runners.flatMap((r) => r.executions).length >= 20, 20_000, 'work started')
    const startTime = () =>
      handle.db
        .execute(sql`select pg_postmaster_start_time()::text as t`)
        .then((r) => rowsOf<{ t: string }>(r)[0]!.t)
    const before = await startTime()
    const doneBefore = (await stateCounts(handle.db)).completed ?? 0
    await server.restart({ downMs: 1_000 })
    await until(
      async () =>
        (await stateCounts(handle.db).catch(() => ({}) as Record<string, number>)).completed ===
        200,
      60_000,
      'all completed after the restart',
    )
    const executions = runners.flatMap((r) => r.executions)
    assert.deepEqual(overlaps(executions), [], 'a task ran twice at once')
    assert.notEqual(await startTime(), before, 'the server restarted')
    assert.ok(doneBefore < 200, 'work remained when the server went down')
  } finally {
    await stopAll(runners)
    await handle.close()
    await server.stop()
  }
})
