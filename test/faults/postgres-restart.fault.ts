/**
 * PostgreSQL restarts under task load on real compute hosts: two `popagent host` processes on a
 * throwaway server that is stopped and started again several times mid-load. The hosts must
 * reconnect rather than exit (also when a restart meets their engines still starting), every task
 * must end completed (an attempt that met the outage failed transiently and waits:
 * docs/tasks.md), none may run twice at once, and the time until work resumes after each restart
 * is measured, with the failed attempts by class.
 */
import assert from 'node:assert/strict'
import { gt, min } from '../../db/drizzle-orm.ts'
import { test } from 'node:test'
import { tasks } from '../../db/schema/index.ts'
import { until } from '../support/until.ts'
import { percentile } from '../../bench/stats.ts'
import { startThrowawayPostgres } from '../support/throwaway-postgres.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { startFaultStack } from './support/process-faults/fault-stack.ts'
import { concurrentDuplicates } from './support/process-faults/recording-proxy.ts'
import {
  account,
  attemptFailures,
  enqueueMarked,
  everyTaskFinal,
} from './support/process-faults/task-load.ts'

const TASKS = sized(100, 600)
const RESTARTS = sized(2, 10)
const LEASE_MS = 3_000

const countBy = (values: string[]) =>
  Object.fromEntries([...new Set(values)].map((v) => [v, values.filter((x) => x === v).length]))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min))

type Restart = {
  downMs: number
  downAt: number
  upAt: number
  completedMs: number
  claimedMs: number
}

test(
  `PostgreSQL restarts under load (${faultMode}: ${RESTARTS} restarts, ${TASKS} tasks)`,
  { timeout: sized(150_000, 900_000) },
  async () => {
    const server = await startThrowawayPostgres()
    const stack = await startFaultStack({
      server: server.url,
      hosts: 2,
      leaseMs: LEASE_MS,
      concurrency: 4,
      pollMs: 250,
      holdMs: { min: 50, max: 200 },
    }).catch(async (error) => {
      await server.stop()
      throw error
    })
    const { db } = stack.handle
    try {
      const ids: string[] = []
      const feed = async (count: number) => {
        const from = ids.length
        ids.push(...(await enqueueMarked(db, from, count)).map((r) => r.id))
      }
      const seen = (at: number) =>
        new Set(stack.proxy.calls.filter((c) => c.start < at).map((c) => c.marker))
      // Work arrives in portions, one before each restart, so every restart lands in load.
      const portion = Math.ceil(TASKS / (RESTARTS + 1))
      const restarts: Restart[] = []
      for (let r = 0; r < RESTARTS; r++) {
        await feed(portion)
        // The first restart may land while the hosts' engines are still starting (they answer
        // before them): a start-up that meets it retries instead of exiting.
        await sleep(r === 0 ? between(0, 1_200) : between(500, 2_000))
        const downMs = between(300, 2_000)
        const downAt = Date.now()
        await server.restart({ downMs })
        const upAt = Date.now()
        // A fresh task right after the restart: found only through a reconnected listener or
        // poll (the first statements on a pool's old connections may still fail, so retried).
        await until(
          () =>
            feed(1).then(
              () => true,
              () => false,
            ),
          30_000,
          'enqueue after restart',
        )
        // Resumed: an attempt's end written after the restart, and a task started that had not
        // started before it (a fresh claim, through the runner's reconnected connections).
        const completedAt = async () => {
          const [row] = await db
            .select({ at: min(tasks.finishedAt) })
            .from(tasks)
            .where(gt(tasks.finishedAt, new Date(upAt)))
          return row?.at?.getTime()
        }
        let completed: number | undefined
        await until(
          async () => {
            // A host that exited will not resume anything: say so at once, with its last words.
            for (const host of stack.everyHost) {
              assert.ok(host.alive(), `${host.name} exited:\n${host.lastWords()}`)
            }
            completed = await completedAt().catch(() => undefined)
            return completed !== undefined
          },
          60_000,
          'a completion after the restart',
        )
        const before = seen(upAt)
        await until(
          () => stack.proxy.calls.some((c) => c.start >= upAt && !before.has(c.marker)),
          60_000,
          'a new task after the restart',
        )
        const claimed = stack.proxy.calls.find((c) => c.start >= upAt && !before.has(c.marker))!
        restarts.push({
          downMs,
          downAt,
          upAt,
          completedMs: completed! - upAt,
          claimedMs: claimed.start - upAt,
        })
      }
      await feed(TASKS - ids.length)

      await until(() => everyTaskFinal(db, ids), sized(90_000, 600_000), 'every task to end')

      const outcome = await account(db, ids)
      const { lost } = outcome
      const failures = attemptFailures(stack.everyHost)
      const duplicates = concurrentDuplicates(stack.proxy.calls)
      const completedMs = restarts.map((r) => r.completedMs)
      const claimedMs = restarts.map((r) => r.claimedMs)
      const figures = {
        tasks: ids.length,
        restarts: restarts.length,
        downMs: restarts.map((r) => r.downMs),
        completed: outcome.completed,
        completedShare: outcome.completed / ids.length,
        lost: lost.length,
        lostStates: countBy(lost.map((t) => `${t.state}/${t.lastErrorClass ?? 'none'}`)),
        // Attempts that met an outage, failed transiently and were queued again.
        failedAttempts: failures.total,
        failedAttemptClasses: failures.byClass,
        unknownShare: failures.unknownShare,
        replays: outcome.replays,
        remediations: outcome.remediations.length,
        concurrentDuplicates: duplicates.length,
        hostsAlive: stack.hosts.filter((h) => h.alive()).length,
        hostProcessesStarted: stack.everyHost.length,
        // Start-up steps a restart met while the hosts' engines were still starting.
        startRetries: stack.everyHost.reduce(
          (n, h) => n + h.logged('database initialisation failed; retrying'),
          0,
        ),
        // Server back → the first attempt end written / the first new task's model request.
        resumeCompletionMs: { p50: percentile(completedMs, 50), max: percentile(completedMs, 100) },
        resumeNewTaskMs: { p50: percentile(claimedMs, 50), max: percentile(claimedMs, 100) },
        modelRequests: stack.proxy.calls.length,
      }
      await recordFigures('postgres-restart', figures)

      for (const host of stack.everyHost) {
        assert.ok(host.alive(), `${host.name} exited:\n${host.lastWords()}`)
      }
      assert.deepEqual(
        lost.map((t) => `${t.title} ${t.state} ${t.lastErrorClass}: ${t.lastError}`),
        [],
        'tasks not completed',
      )
      assert.equal(outcome.completed, ids.length, 'every task completed')
      assert.equal(outcome.remediations.length, 0, 'no task failed, so none was remediated')
      assert.deepEqual(duplicates, [], 'a task ran twice at once')
    } finally {
      await stack.stop()
      await server.stop()
    }
  },
)
