/**
 * `rawRowMapper` (db/rows.ts): a raw row from `db.execute()` maps to exactly the object drizzle's
 * own select gives, on real PostgreSQL and on the embedded one, for every column type the
 * schema uses (text, integer, timestamps, jsonb, a numeric bigint, boolean) and for nulls.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { eq, sql, type Table } from '../db/drizzle-orm.ts'
import { DEFAULT_WORKSPACE_ID } from '../db/data-migrations/0002-register-default-workspace.ts'
import type { Db } from '../db/index.ts'
import { rawRowMapper, rowsOf } from '../db/rows.ts'
import { schedules, taskActivity, tasks } from '../db/schema/index.ts'
import { enqueue } from '../runtime/tasks/index.ts'
import { createEmbeddedDatabase, createTestDatabase } from './support/database.ts'

const at = (iso: string) => new Date(iso)

/** One row per shape: every nullable column set, and every nullable column null. */
async function seed(db: Db) {
  const full = await enqueue(db, {
    source: 'user',
    workspaceId: DEFAULT_WORKSPACE_ID,
    title: 'every column set',
    prompt: 'a prompt',
    model: 'some-model',
  })
  await db
    .update(tasks)
    .set({
      state: 'failed',
      attemptCount: 2,
      occurrenceAt: at('2026-01-02T03:04:05.678Z'),
      scheduleId: 'sch_1',
      parentTaskId: 'tsk_parent',
      lastErrorClass: 'permanent',
      lastError: 'it broke',
      deadLetteredAt: at('2026-01-03T00:00:00Z'),
      result: 'partial',
      resolutionEvidence: 'evidence',
      resolvedAt: at('2026-01-04T00:00:00Z'),
      claimedBy: 'runner-x',
      claimedAt: at('2026-01-05T00:00:00Z'),
      heartbeatAt: at('2026-01-05T00:00:01Z'),
      finishedAt: at('2026-01-05T00:00:02Z'),
      turnId: 'trn_1',
      traceId: 'trace_1',
    })
    .where(eq(tasks.id, full.id))
  await enqueue(db, {
    source: 'user',
    workspaceId: DEFAULT_WORKSPACE_ID,
    title: 'nullable columns null',
    prompt: 'another prompt',
  })
  await db.insert(taskActivity).values({
    taskId: full.id,
    attempt: 1,
    record: { step: 1, nested: { list: [1, 'two', null] }, text: 'ünïcødé' },
  })
  await db.insert(schedules).values([
    {
      id: 'sch_on',
      source: 'user',
      workspaceId: DEFAULT_WORKSPACE_ID,
      name: 'enabled',
      cron: '0 * * * *',
      prompt: 'p',
      nextRunAt: at('2026-02-01T00:00:00Z'),
    },
    {
      id: 'sch_off',
      source: 'user',
      workspaceId: DEFAULT_WORKSPACE_ID,
      name: 'disabled',
      cron: '0 * * * *',
      prompt: 'p',
      enabled: false,
    },
  ])
}

// Every table here has an `id` primary key: both reads give the rows in the same order.
async function assertSameAsSelect(db: Db, table: Table) {
  const selected = await db
    .select()
    .from(table)
    .orderBy(sql`id`)
  const raw = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select * from ${table} order by id`),
  )
  assert.ok(selected.length >= 1)
  assert.deepEqual(raw.map(rawRowMapper(table)), selected)
}

async function assertMapsLikeDrizzle(db: Db) {
  await seed(db)
  await assertSameAsSelect(db, tasks)
  await assertSameAsSelect(db, taskActivity)
  await assertSameAsSelect(db, schedules)
  // Columns the table does not have (a discriminator added by the statement) are left out.
  const [raw] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`select true as "completed?", * from ${tasks} limit 1`),
  )
  assert.equal('completed?' in rawRowMapper(tasks)(raw!), false)
}

const databases = {
  PostgreSQL: async () => {
    const database = await createTestDatabase()
    return { db: database.db, close: database.drop }
  },
  'the embedded database': createEmbeddedDatabase,
}

for (const [where, open] of Object.entries(databases)) {
  test(`a raw row maps to what drizzle selects, on ${where}`, async () => {
    const database = await open()
    try {
      await assertMapsLikeDrizzle(database.db)
    } finally {
      await database.close()
    }
  })
}
