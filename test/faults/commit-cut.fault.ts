/**
 * Lost replies to committed completions. A real task runner with a short executor talks to
 * PostgreSQL through a proxy (test/support/pg-cut-proxy.ts) that, at random moments under load,
 * lets the runner's batched completion statement commit and then cuts the connection before the
 * reply arrives. The runner sees a connection error for a write that landed, retries the end of
 * each of those attempts one by one, and must recognise its own committed end: every task ends
 * completed, runs exactly once (never twice at once, never again after its completion
 * committed), and is announced by exactly one TaskStop, without a "claim lost" line. The same
 * statement claims the next tasks, so the cut also loses a committed claim: the runner must take
 * those over (no task may need a second attempt).
 */
import assert from 'node:assert/strict'
import { inArray } from '../../db/drizzle-orm.ts'
import { test } from 'node:test'
import { tasks } from '../../db/schema/index.ts'
import { openNodePostgres } from '../../compute-host/database/postgres.ts'
import type { TaskExecutor } from '../../compute-host/tasks/runner.ts'
import { createId } from '../../runtime/ids.ts'
import { createTestDatabase, type TestDatabase } from '../support/database.ts'
import { startCutProxy } from '../support/pg-cut-proxy.ts'
import { startRunner, userTask } from '../support/task-runner.ts'
import { until } from '../support/until.ts'
import { faultMode, recordFigures, sized } from './mode.ts'

const TASKS = sized(200, 2_000)
const CUTS = sized(5, 50)
const BATCH = 20

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min))

// The runner's batched completion (alone, or with the claim that refills the freed slots): one
// autocommit statement, committed at its Sync.
const isBatchedCompletion = (sql: string) =>
  sql.includes('update "popagent_agent_tasks" set "state" = case when')

test(
  `lost replies to committed completions (${faultMode}: ${CUTS} cuts, ${TASKS} tasks)`,
  { timeout: sized(120_000, 600_000) },
  async () => {
    const database = await createTestDatabase()
    try {
      await cutUnderLoad(database)
    } finally {
      await database.drop()
    }
  },
)

async function cutUnderLoad(database: TestDatabase) {
  const { db } = database
  const proxy = await startCutProxy(database.url, isBatchedCompletion)
  const runnerHandle = openNodePostgres(proxy.url, { max: 6, applicationName: 'commit-cut-runner' })

  const running = new Set<string>()
  const executions = new Map<string, number>()
  let concurrentDuplicates = 0
  const execute: TaskExecutor = async (task) => {
    if (running.has(task.id)) concurrentDuplicates++
    running.add(task.id)
    executions.set(task.id, (executions.get(task.id) ?? 0) + 1)
    try {
      await sleep(between(0, 4))
      return { result: `done ${task.id}` }
    } finally {
      running.delete(task.id)
    }
  }
  const { runner, events, lines } = startRunner(runnerHandle, { execute })
  const began = Date.now()
  await runner.start()
  const ids: string[] = []
  try {
    // Work arrives in batches while the cuts happen, so every cut lands in load.
    const feeding = (async () => {
      for (let from = 0; from < TASKS; from += BATCH) {
        const rows = await db
          .insert(tasks)
          .values(
            Array.from({ length: Math.min(BATCH, TASKS - from) }, () => ({
              ...userTask('ok'),
              id: createId('task'),
            })),
          )
          .returning({ id: tasks.id })
        ids.push(...rows.map((r) => r.id))
        await sleep(between(5, 40))
      }
    })()
    // Each cut waits (bounded) for a completion to cut; a quiet queue ends the loop early.
    for (let k = 0; k < CUTS; k++) {
      await sleep(between(10, 120))
      const cut = await Promise.race([
        proxy.armCut().then(() => true),
        sleep(5_000).then(() => false),
      ])
      if (!cut) break
    }
    await feeding

    const done = async () => {
      const rows = await db.select({ state: tasks.state }).from(tasks).where(inArray(tasks.id, ids))
      return rows.length === ids.length && rows.every((r) => r.state === 'completed')
    }
    await until(done, sized(60_000, 300_000), 'every task to complete')
    // TaskStop follows the commit; give the last retries (backoff up to 2 s) time to announce.
    await until(
      () => events.filter((e) => e.type === 'TaskStop').length >= ids.length,
      15_000,
      'every TaskStop',
    ).catch(() => {})
  } finally {
    await runner.stop()
    await runnerHandle.close()
    await proxy.close()
  }

  const rows = await db
    .select({ id: tasks.id, state: tasks.state, attempts: tasks.attemptCount })
    .from(tasks)
    .where(inArray(tasks.id, ids))
  const stops = new Map<string, number>()
  for (const event of events) {
    if (event.type === 'TaskStop' && event.outcome === 'completed') {
      stops.set(event.task.id, (stops.get(event.task.id) ?? 0) + 1)
    }
  }
  const count = (pred: (id: string) => boolean) => ids.filter(pred).length
  const figures = {
    tasks: ids.length,
    cuts: proxy.cuts,
    completed: rows.filter((r) => r.state === 'completed').length,
    reattempted: rows.filter((r) => r.attempts !== 1).length,
    executedTwice: count((id) => (executions.get(id) ?? 0) > 1),
    neverExecuted: count((id) => !executions.has(id)),
    concurrentDuplicates,
    taskStopMissing: count((id) => !stops.has(id)),
    taskStopDuplicated: count((id) => (stops.get(id) ?? 0) > 1),
    claimLostLines: lines.filter((l) => l.includes('claim lost')).length,
    // Claims committed with a cut completion, started by this runner after the reply was lost.
    claimsTakenOver: lines.filter((l) => l.includes('taken over')).length,
    seconds: Math.round((Date.now() - began) / 100) / 10,
  }
  await recordFigures('commit-cut', figures)

  assert.ok(figures.cuts > 0, 'no completion was cut: the fault never happened')
  assert.equal(figures.completed, TASKS, 'every task ends completed')
  assert.equal(figures.reattempted, 0, 'a task was claimed again after its completion committed')
  assert.equal(figures.executedTwice, 0, 'a task was executed twice')
  assert.equal(figures.neverExecuted, 0)
  assert.equal(figures.concurrentDuplicates, 0, 'a task ran twice at once')
  assert.equal(figures.taskStopMissing, 0, 'a completed task got no TaskStop')
  assert.equal(figures.taskStopDuplicated, 0, 'a task got two TaskStops')
  assert.equal(figures.claimLostLines, 0, 'a committed completion was logged as a lost claim')
}
