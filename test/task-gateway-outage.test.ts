/**
 * A gateway outage under queued work, end to end: the scripted gateway answers 503 to every model
 * request for a while (seconds here; the backoff is scaled down with it) and then recovers. Every
 * task must complete, none may fail or dead-letter or need a remediation, each task's attempts
 * must grow one at a time with its ceiling, and while the outage lasts the API shows why a task
 * waits and when it tries next.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { inArray } from '../db/drizzle-orm.ts'
import { tasks } from '../db/schema/index.ts'
import { runDeps } from '../compute-host/runs/run-deps.ts'
import { createTaskAttempts } from '../compute-host/runs/task-attempt.ts'
import type { TaskLifecycleEvent } from '../compute-host/tasks/lifecycle.ts'
import { createTaskRunner } from '../compute-host/tasks/runner.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Tasks from '../runtime/tasks/index.ts'
import { startTestStack } from './support/stack.ts'
import { until } from './support/task-runner.ts'

const OUTAGE_MS = 20_000
const TASKS = 6
const BACKOFF = { baseMs: 500, capMs: 4_000 }

test('a gateway that answers 503 for a while: every queued task waits, then completes', async () => {
  const root = await mkdtemp(join(tmpdir(), 'popagent-outage-'))
  await mkdir(join(root, 'popagent'))
  const stack = await startTestStack({
    models: [{ id: 'remote/a' }],
    hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
  })
  const { resources } = stack.host
  const db = resources.databases.application.db
  // The host's own runner keeps the production backoff (5 s … 5 min); this test runs the same
  // executor under a runner with the backoff scaled to the outage.
  await resources.tasks.stop()
  await Settings.agentRuntime.patch(db, { configuredModel: 'remote/a', modelSource: 'configured' })
  const events: TaskLifecycleEvent[] = []
  const runner = createTaskRunner({
    handle: resources.databases.application,
    execute: createTaskAttempts(runDeps(resources, resources.log)),
    timing: async () => ({
      concurrency: 4,
      pollIntervalMs: 200,
      timeoutMs: 60_000,
      abortAckMs: 2_000,
      staleAfterMs: 60 * 60_000,
    }),
    log: resources.log.child({ component: 'outage-test' }),
    redact: resources.redact,
    backoff: BACKOFF,
    leaseMs: 10_000,
    observers: [(e) => void events.push(e)],
  })
  const healAt = Date.now() + OUTAGE_MS
  let refused = 0
  stack.gateway.respondWith(() => {
    if (Date.now() < healAt) {
      refused++
      return { status: 503, message: 'scripted outage' }
    }
    return { text: 'done' }
  })
  try {
    const ids: string[] = []
    for (let i = 0; i < TASKS; i++) {
      const task = await Tasks.create(db, { workspaceId: 'wsp_default', prompt: `job ${i}` })
      ids.push(task.id)
    }
    await runner.start()

    // During the outage: a task waits, and says why and until when, through the edge.
    await until(
      async () => (await Tasks.get(db, ids[0]!)).waiting !== null,
      15_000,
      'a waiting task',
    )
    const shown = await stack.edge().request(`/api/tasks/${ids[0]}`)
    const body = (await shown.json()) as Tasks.TaskRow & { waiting: any }
    assert.equal(body.state, 'queued')
    assert.equal(body.waiting.errorClass, 'provider')
    assert.ok(Date.parse(body.waiting.nextAttemptAt) > Date.now() - 5_000)
    const listed = (await (await stack.edge().request('/api/tasks?state=queued')).json()) as {
      tasks: Array<{ id: string; waiting: unknown }>
    }
    assert.ok(listed.tasks.some((t) => t.id === ids[0] && t.waiting))
    assert.ok(Date.now() < healAt, 'the outage was still on when the waiting task was shown')

    await until(
      async () =>
        (await db.select().from(tasks).where(inArray(tasks.id, ids))).every(
          (t) => t.state === 'completed',
        ),
      OUTAGE_MS + 40_000,
      'every task to complete after the outage',
    )
    const rows = await db.select().from(tasks).where(inArray(tasks.id, ids))
    const remediations = await db.select().from(tasks).where(inArray(tasks.parentTaskId, ids))
    assert.equal(remediations.length, 0, 'nothing failed, so nothing was remediated')
    assert.ok(refused > 0, 'the outage was met')
    for (const row of rows) {
      assert.equal(row.deadLetteredAt, null)
      assert.equal(row.lastErrorClass, null)
      const starts = events
        .filter((e) => e.type === 'TaskStart' && e.task.id === row.id)
        .map((e) => e.attempt)
      assert.deepEqual(
        starts,
        starts.map((_, i) => i + 1),
        'attempts grow one at a time',
      )
      assert.equal(row.attemptCount, starts.length)
      // The ceiling followed the attempts, one at a time, from its default of 3.
      assert.equal(row.maxAttempts, Math.max(3, row.attemptCount))
      const stops = events.filter((e) => e.type === 'TaskStop' && e.task.id === row.id)
      assert.deepEqual(
        stops.map((e) => e.type === 'TaskStop' && e.outcome),
        [...Array(starts.length - 1).fill('failed'), 'completed'],
      )
    }
    assert.ok(
      rows.some((r) => r.attemptCount > 3),
      `an outage this long outlasts the default ceiling: ${rows.map((r) => r.attemptCount)}`,
    )
  } finally {
    await runner.stop()
    await stack.stop()
    await rm(root, { recursive: true, force: true })
  }
})
