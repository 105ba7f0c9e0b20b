/**
 * At most one self-update task is queued, running or cancelling across all hosts (issue 24, S1),
 * enforced by PostgreSQL's partial unique index: a property walk over simulated time with two
 * schedulers and many self-update schedules, a burst of concurrent inserts from two pools, and two
 * real host processes racing while their runners complete the work.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { and, eq, inArray, sql } from '../db/drizzle-orm.ts'
import { fileURLToPath } from 'node:url'
import { after, before, test } from 'node:test'
import type { DatabaseHandle } from '../compute-host/database/handle.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createLogger } from '../compute-host/log.ts'
import { previewCron } from '../compute-host/schedules/cron.ts'
import { createScheduler } from '../compute-host/schedules/scheduler.ts'
import type { Db } from '../db/index.ts'
import { scheduleFires, schedules, tasks } from '../db/schema/index.ts'
import { AutonomousTaskActive } from '../runtime/self-update/autonomous-slot.ts'
import * as Schedules from '../runtime/schedules/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import { enqueue } from '../runtime/tasks/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'

const MINUTE = 60_000
let database: TestDatabase
let hosts: DatabaseHandle[]
let workspaceIds: string[]

before(async () => {
  database = await createTestDatabase()
  hosts = [openNodePostgres(database.url, { max: 3 }), openNodePostgres(database.url, { max: 3 })]
  workspaceIds = []
  for (let i = 0; i < 6; i++) {
    workspaceIds.push((await Workspaces.create(database.db, { name: `w${i}`, path: `w${i}` })).id)
  }
  await Settings.autonomy.patch(database.db, { selfUpdateEnabled: true })
})
after(async () => {
  for (const host of hosts) await host.close()
  await database.drop()
})

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ACTIVE = ['queued', 'running', 'cancelling'] as const
async function activeSelfUpdate(db: Db) {
  return db
    .select({ id: tasks.id, state: tasks.state })
    .from(tasks)
    .where(and(eq(tasks.source, 'self-update'), inArray(tasks.state, [...ACTIVE])))
}

test('two schedulers over simulated days never leave more than one self-update task active', async (t) => {
  const db = database.db
  let current = new Date('2030-03-01T00:03:11Z').getTime()
  const now = () => new Date(current)
  const crons = [
    '*/15 * * * *',
    '*/10 * * * *',
    '0 * * * *',
    '*/5 * * * *',
    '7,37 * * * *',
    '*/20 * * * *',
  ]
  for (const [i, workspaceId] of workspaceIds.entries()) {
    const cron = crons[i]!
    await Schedules.create(db, {
      workspaceId,
      name: `self-update ${i}`,
      prompt: 'improve the repository',
      cron: Schedules.checkedCron(cron, previewCron(cron, { now: now() })),
      source: 'self-update',
    })
  }
  const skipped: string[] = []
  const log = createLogger({
    secrets: [],
    write: (line) => {
      const parsed = JSON.parse(line) as { message?: string; reason?: string }
      if (parsed.message === 'self-update occurrence skipped') skipped.push(parsed.reason ?? '')
    },
  })
  const pair = hosts.map((h) => createScheduler({ db: h.db, log, now }))
  const rand = random(24)
  let maxActive = 0
  let completed = 0
  for (let step = 0; step < 400; step++) {
    current += 2 * MINUTE + Math.floor(rand() * 9 * 60) * 1000
    const first = rand() < 0.5 ? 0 : 1
    await Promise.all([pair[first]!.tick(), pair[1 - first]!.tick()])
    const active = await activeSelfUpdate(db)
    maxActive = Math.max(maxActive, active.length)
    assert.ok(active.length <= 1, `step ${step}: ${active.length} self-update tasks active`)
    // The runner's part, simulated: the active task sometimes moves on or ends.
    const [task] = active
    const roll = rand()
    if (task && roll < 0.3) {
      await db.update(tasks).set({ state: 'running' }).where(eq(tasks.id, task.id))
    } else if (task && roll < 0.6) {
      await db
        .update(tasks)
        .set({ state: 'completed', finishedAt: now() })
        .where(eq(tasks.id, task.id))
      completed++
    }
  }
  const fires = await db.select().from(scheduleFires).where(eq(scheduleFires.outcome, 'fired'))
  const made = await db.select({ id: tasks.id }).from(tasks).where(eq(tasks.source, 'self-update'))
  const refused = await db
    .select({ reason: scheduleFires.reason })
    .from(scheduleFires)
    .where(
      and(
        eq(scheduleFires.outcome, 'skipped'),
        eq(
          scheduleFires.reason,
          'an autonomous task (self-update or build-maintenance) was already active',
        ),
      ),
    )
  t.diagnostic(`${fires.length} fired, ${skipped.length} skipped, ${completed} completed`)
  assert.equal(maxActive, 1, 'the walk did have self-update work')
  assert.ok(completed > 20, `work moved on (${completed} completed)`)
  assert.equal(
    fires.length,
    made.length,
    'every recorded fire has its task; skipped ones have none',
  )
  assert.ok(
    skipped.length > 50,
    `occurrences were skipped while the slot was busy (${skipped.length})`,
  )
  assert.deepEqual(
    [...new Set(skipped)],
    ['an autonomous task (self-update or build-maintenance) was already active'],
  )
  assert.equal(refused.length, skipped.length, 'every refused occurrence is recorded skipped')
  await db.update(tasks).set({ state: 'completed' }).where(eq(tasks.source, 'self-update'))

  // With self-update switched off, due occurrences are skipped too and nothing is queued.
  await Settings.autonomy.patch(db, { selfUpdateEnabled: false })
  try {
    const before = made.length
    skipped.length = 0
    for (let step = 0; step < 10; step++) {
      current += 30 * MINUTE
      await Promise.all(pair.map((s) => s.tick()))
    }
    const after = await db
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.source, 'self-update'))
    assert.equal(after.length, before)
    assert.ok(skipped.length > 0)
    assert.deepEqual([...new Set(skipped)], ['self-update is off'])
    const off = await db
      .select({ reason: scheduleFires.reason })
      .from(scheduleFires)
      .where(eq(scheduleFires.reason, 'self-update is off'))
    assert.equal(off.length, skipped.length, 'and recorded skipped')
  } finally {
    await Settings.autonomy.patch(db, { selfUpdateEnabled: true })
    await db.delete(schedules)
  }
})

test('a burst of concurrent inserts from two pools: exactly one is queued, the rest 409', async () => {
  const attempts = Array.from({ length: 24 }, (_, i) =>
    enqueue(hosts[i % 2]!.db, {
      source: 'self-update',
      workspaceId: workspaceIds[i % workspaceIds.length]!,
      title: `burst ${i}`,
      prompt: 'improve',
    }).then(
      () => 'created',
      (error: unknown) => {
        if (error instanceof AutonomousTaskActive) {
          assert.equal(error.status, 409)
          return 'refused'
        }
        throw error
      },
    ),
  )
  const outcomes = await Promise.all(attempts)
  assert.equal(outcomes.filter((o) => o === 'created').length, 1)
  assert.equal(outcomes.filter((o) => o === 'refused').length, 23)
  // The owner's work is not limited by it.
  await enqueue(database.db, {
    source: 'user',
    workspaceId: workspaceIds[0]!,
    title: 'u',
    prompt: 'u',
  })
  // Build maintenance shares the autonomous lease: refused while the self-update task holds it.
  await assert.rejects(
    enqueue(database.db, {
      source: 'build-maintenance',
      workspaceId: workspaceIds[0]!,
      title: 'b',
      prompt: 'b',
    }),
    AutonomousTaskActive,
  )
  await database.db
    .update(tasks)
    .set({ state: 'completed' })
    .where(sql`true`)
})

test('two real host processes racing never have two self-update tasks active', async (t) => {
  const script = fileURLToPath(new URL('./support/autonomous-host.ts', import.meta.url))
  const start = (id: string, workspaceId: string) => {
    const child = spawn(process.execPath, [script], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: database.url,
        HOST_ID: id,
        WORKSPACE_ID: workspaceId,
        DURATION_MS: '4000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    return { exited, out: () => out, err: () => err }
  }
  const children = [start('host-a', workspaceIds[0]!), start('host-b', workspaceIds[1]!)]
  let running = true
  let samples = 0
  let maxActive = 0
  const watch = (async () => {
    while (running) {
      maxActive = Math.max(maxActive, (await activeSelfUpdate(database.db)).length)
      samples++
      await new Promise((r) => setTimeout(r, 3))
    }
  })()
  const codes = await Promise.all(children.map((c) => c.exited))
  running = false
  await watch
  for (const [i, child] of children.entries()) {
    assert.equal(codes[i], 0, child.err().slice(-2_000))
  }
  const results = children.map(
    (c) => JSON.parse(/DONE (.*)/.exec(c.out())![1]!) as { created: number; refused: number },
  )
  t.diagnostic(`hosts ${JSON.stringify(results)}, ${samples} samples, at most ${maxActive} active`)
  assert.ok(samples > 100, `sampled often (${samples})`)
  assert.equal(maxActive, 1)
  for (const [i, r] of results.entries()) {
    assert.ok(r.created >= 2, `host ${i} got the slot more than once: ${JSON.stringify(r)}`)
    assert.ok(r.refused > 0)
  }
  const done = await database.db
    .select({ id: tasks.id, state: tasks.state })
    .from(tasks)
    .where(and(eq(tasks.source, 'self-update'), sql`${tasks.title} like 'from host-%'`))
  assert.equal(done.length, results[0]!.created + results[1]!.created)
  assert.ok(
    done.every((t) => t.state === 'completed'),
    'every created task ran to completion',
  )
})
