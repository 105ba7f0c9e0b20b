/**
 * Self-update reconcile (issue 24, S1): one system schedule per eligible workspace, reasons for
 * every ineligible one, operator timing never overwritten, and concurrent reconciles making one
 * row. Real PostgreSQL, real git repositories; the PGlite path at the end.
 */
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { and, eq } from '../db/drizzle-orm.ts'
import { after, before, test } from 'node:test'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { reconcileSelfUpdate, staggeredCron } from '../compute-host/self-update/reconcile.ts'
import { schedules } from '../db/schema/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import {
  createEmbeddedDatabase,
  createTestDatabase,
  type TestDatabase,
} from './support/database.ts'
import { fixtureRepo, tempDir } from './support/self-update-repo.ts'
import { startTestStack } from './support/stack.ts'
import { waitFor } from './support/until.ts'

let database: TestDatabase
let root: string
const ids: Record<string, string> = {}

before(async () => {
  database = await createTestDatabase()
  root = await tempDir('reconcile')
  await fixtureRepo(root, 'good')
  await fixtureRepo(root, 'dirty')
  await writeFile(join(root, 'dirty', 'wip.txt'), 'work in progress\n')
  await mkdir(join(root, 'plain'))
  for (const name of ['good', 'dirty', 'plain']) {
    ids[name] = (await Workspaces.create(database.db, { name, path: name })).id
  }
})
after(async () => {
  await database.drop()
  await rm(root, { recursive: true, force: true })
})

const selfUpdateRows = () =>
  database.db.select().from(schedules).where(eq(schedules.source, 'self-update'))

test('with self-update off, every workspace is ineligible and nothing is created', async () => {
  const report = await reconcileSelfUpdate({ db: database.db, workspaceRoot: root })
  const good = report.workspaces.find((w) => w.workspaceId === ids.good)!
  assert.equal(good.eligible, false)
  assert.ok(good.reasons.includes('self-update is off in the autonomy settings'))
  assert.equal((await selfUpdateRows()).length, 0)
})

test('each eligible workspace gets one staggered schedule; the others say why not', async () => {
  await Settings.autonomy.patch(database.db, { selfUpdateEnabled: true })
  const report = await reconcileSelfUpdate({ db: database.db, workspaceRoot: root })
  const by = (name: string) => report.workspaces.find((w) => w.workspaceId === ids[name])!
  assert.deepEqual(by('good').reasons, [], 'the seeded roles and a clean repository qualify')
  assert.equal(by('good').eligible, true)
  assert.equal(by('good').created, true)
  assert.equal(by('dirty').eligible, false)
  assert.match(by('dirty').reasons.join(), /1 uncommitted or untracked change/)
  assert.match(by('plain').reasons.join(), /not a usable Git repository/)
  const rows = await selfUpdateRows()
  assert.equal(rows.length, 1)
  assert.equal(rows[0]!.workspaceId, ids.good)
  assert.equal(rows[0]!.cron, staggeredCron(ids.good!))
  assert.equal(rows[0]!.maxAttempts, 3)
  assert.ok(rows[0]!.nextRunAt && rows[0]!.nextRunAt > new Date())
})

test('reconcile never overwrites what the operator changed, and concurrent runs make one row', async () => {
  const [row] = await selfUpdateRows()
  await database.db
    .update(schedules)
    .set({ cron: '15 13 * * 2', enabled: false, maxAttempts: 7 })
    .where(eq(schedules.id, row!.id))
  const pools = [
    openNodePostgres(database.url, { max: 2 }),
    openNodePostgres(database.url, { max: 2 }),
  ]
  try {
    await writeFile(join(root, 'dirty', 'wip.txt'), '')
    await rm(join(root, 'dirty', 'wip.txt'))
    const reports = await Promise.all(
      [0, 1, 0, 1].map((i) => reconcileSelfUpdate({ db: pools[i]!.db, workspaceRoot: root })),
    )
    const createdDirty = reports
      .flatMap((r) => r.workspaces)
      .filter((w) => w.workspaceId === ids.dirty && w.created)
    assert.equal(createdDirty.length, 1, 'the cleaned workspace got exactly one new schedule')
  } finally {
    await Promise.all(pools.map((p) => p.close()))
  }
  const [kept] = await database.db
    .select()
    .from(schedules)
    .where(and(eq(schedules.source, 'self-update'), eq(schedules.workspaceId, ids.good!)))
  assert.deepEqual([kept!.cron, kept!.enabled, kept!.maxAttempts], ['15 13 * * 2', false, 7])
  assert.equal((await selfUpdateRows()).length, 2)
})

test('PGlite: reconcile creates and then keeps the schedule', async () => {
  const embedded = await createEmbeddedDatabase()
  try {
    await Settings.autonomy.patch(embedded.db, { selfUpdateEnabled: true })
    const id = (await Workspaces.create(embedded.db, { name: 'good', path: 'good' })).id
    const first = await reconcileSelfUpdate({ db: embedded.db, workspaceRoot: root })
    assert.equal(first.workspaces.find((w) => w.workspaceId === id)?.created, true)
    const second = await reconcileSelfUpdate({ db: embedded.db, workspaceRoot: root })
    const again = second.workspaces.find((w) => w.workspaceId === id)!
    assert.equal(again.created, false)
    assert.equal(again.scheduleId, first.workspaces.find((w) => w.workspaceId === id)?.scheduleId)
  } finally {
    await embedded.close()
  }
})

test('a host starting with self-update on reconciles by itself', async () => {
  const stackRoot = await tempDir('reconcile-start')
  await fixtureRepo(stackRoot, 'popagent')
  const stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: stackRoot } })
  try {
    const db = stack.host.resources.databases.application.db
    await Settings.autonomy.patch(db, { selfUpdateEnabled: true })
    await stack.restartHost()
    const db2 = stack.host.resources.databases.application.db
    await waitFor(
      async () => {
        const rows = await db2.select().from(schedules).where(eq(schedules.source, 'self-update'))
        return rows.length === 1 ? rows : undefined
      },
      15_000,
      'the start-up reconcile',
    )
    const [row] = await db2.select().from(schedules).where(eq(schedules.source, 'self-update'))
    assert.equal(row!.workspaceId, 'wsp_default')
    assert.ok(stack.logs.some((l) => l.message === 'self-update schedules reconciled'))
  } finally {
    await stack.stop()
    await rm(stackRoot, { recursive: true, force: true })
  }
})
