import assert from 'node:assert/strict'
import { eq, sql } from '../db/drizzle-orm.ts'
import { test } from 'node:test'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { createEmbeddedDatabase, createTestDatabase } from './support/database.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import { applyDataMigrations, DATA_MIGRATIONS } from '../db/data-migrations/index.ts'
import { agents } from '../db/schema/index.ts'
import { migrateDatabase, MIGRATIONS_FOLDER } from '../compute-host/database/migrate.ts'

const ALL_DATA_MIGRATIONS = DATA_MIGRATIONS.map((m) => m.name).sort()

const count = async (db: Db, table: string) => {
  const rows = rowsOf<{ n: number }>(
    await db.execute(sql.raw(`select count(*)::int as n from ${table}`)),
  )
  return rows[0]!.n
}

test('concurrent starts migrate one database once, under the advisory lock', async () => {
  const database = await createTestDatabase({ migrate: false })
  try {
    const handles = Array.from({ length: 4 }, () => openNodePostgres(database.url, { max: 2 }))
    try {
      const reports = await Promise.all(handles.map((h) => migrateDatabase(h)))
      const applied = reports.flatMap((r) => r.dataMigrationsApplied).sort()
      // Each data migration ran in exactly one of the four starts.
      assert.deepEqual(applied, ALL_DATA_MIGRATIONS)
      assert.equal(await count(database.db, 'popagent_agent_runtime_settings'), 1)
      for (const table of [
        'popagent_memory_settings',
        'popagent_autonomy_settings',
        'popagent_browser_settings',
      ]) {
        assert.equal(await count(database.db, table), 1, table)
      }
      assert.equal(await count(database.db, 'popagent_agents'), 7)
      assert.equal(await count(database.db, 'popagent_agent_skills'), 14)
      assert.equal(await count(database.db, 'popagent_data_migrations'), DATA_MIGRATIONS.length)
    } finally {
      await Promise.all(handles.map((h) => h.close()))
    }
  } finally {
    await database.drop()
  }
})

test('a deleted settings singleton is not recreated by a later start', async () => {
  const database = await createTestDatabase()
  try {
    await database.db.execute(sql`delete from popagent_agent_runtime_settings`)
    const report = await migrateDatabase(database.handle)
    assert.deepEqual(report.dataMigrationsApplied, [])
    assert.equal(await count(database.db, 'popagent_agent_runtime_settings'), 0)
  } finally {
    await database.drop()
  }
})

test('the role seed keeps an agent row that already existed and seeds the rest', async () => {
  const database = await createTestDatabase({ migrate: false })
  const handle = openNodePostgres(database.url, { max: 1 })
  try {
    // The schema first, with every data migration before the role seed marked as done.
    const before = DATA_MIGRATIONS.filter((m) => m.name < '0004')
    await handle.migrateSchema(handle.db, MIGRATIONS_FOLDER)
    await applyDataMigrations(handle.db, before)
    await handle.db.insert(agents).values({
      id: 'researcher',
      displayName: 'My Researcher',
      delegationDescription: 'mine',
      instructions: 'The owner wrote these before the seed shipped.',
      sourceUrls: [],
      workspaceAccess: 'read-only',
      browserAccess: 'none',
      delegationEligible: true,
      tools: [],
      modelOverride: null,
    })
    const report = await migrateDatabase(handle)
    assert.deepEqual(
      report.dataMigrationsApplied,
      DATA_MIGRATIONS.filter((m) => m.name >= '0004').map((m) => m.name),
    )
    const [kept] = await handle.db.select().from(agents).where(eq(agents.id, 'researcher'))
    assert.equal(kept?.displayName, 'My Researcher')
    assert.equal(kept?.instructions, 'The owner wrote these before the seed shipped.')
    assert.equal(await count(database.db, 'popagent_agents'), 7)
  } finally {
    await handle.close()
    await database.drop()
  }
})

test('configurable settings columns have no database defaults', async () => {
  const database = await createTestDatabase()
  try {
    const rows = rowsOf<{ column_name: string }>(
      await database.db.execute(sql`
      select column_name from information_schema.columns
      where table_name = 'popagent_agent_runtime_settings' and column_default is not null`),
    )
    assert.deepEqual(rows.map((r) => r.column_name).sort(), ['singleton', 'updated_at'])
  } finally {
    await database.drop()
  }
})

test('the seeded agent-runtime singleton holds the starting values', async () => {
  const database = await createTestDatabase()
  try {
    const [row] = rowsOf<{
      model_source: string
      local_model: string
      supervisor_max_steps: number
      specialist_max_steps: number
      task_concurrency: number
    }>(await database.db.execute(sql`select * from popagent_agent_runtime_settings`))
    assert.ok(row, 'the singleton was not seeded')
    assert.equal(row.model_source, 'local')
    assert.equal(row.local_model, 'titan/ornith-1.0-9b-mtp-q4_k_m')
    assert.ok(row.supervisor_max_steps > row.specialist_max_steps)
    assert.equal(row.task_concurrency, 2)
  } finally {
    await database.drop()
  }
})

test('the embedded database migrates, keeps pgvector available, and a second run is a no-op', async () => {
  const database = await createEmbeddedDatabase()
  try {
    const result = await database.db.execute(
      sql`select extname from pg_extension where extname = 'vector'`,
    )
    assert.equal(rowsOf(result).length, 1)
    await database.db.execute(sql`select '[1,2,3]'::vector <-> '[1,2,4]'::vector as d`)
    const again = await migrateDatabase(database.handle)
    assert.deepEqual(again.dataMigrationsApplied, [])
    const markers = await database.db.execute(
      sql`select name from popagent_data_migrations order by name`,
    )
    assert.deepEqual(
      rowsOf<{ name: string }>(markers).map((r) => r.name),
      ALL_DATA_MIGRATIONS,
    )
  } finally {
    await database.close()
  }
})
