/**
 * The observability database's own schema (db/observability/): migrated on a real PostgreSQL and
 * on the embedded one, by a started host, and by `popagent migrate` for both databases at once.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import { modelPrices, retentionRuns } from '../db/observability/schema/index.ts'
import {
  embeddedHandle,
  OBSERVABILITY_SCHEMA,
  openEmbeddedMemory,
  openPglite,
} from '../compute-host/database/embedded.ts'
import {
  migrateObservabilityDatabase,
  OBSERVABILITY_MIGRATIONS_FOLDER,
  OBSERVABILITY_MIGRATIONS_TABLE,
} from '../compute-host/database/migrate.ts'
import { openNodePostgres } from '../compute-host/database/postgres.ts'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'
import { startComputeHost } from '../compute-host/main.ts'
import { createDatabaseOnServer } from './support/database.ts'
import { runCli } from './support/process.ts'

const OBSERVABILITY_TABLES = [
  'popagent_model_prices',
  'popagent_obs_retention_runs',
  'popagent_obs_retention_settings',
]
const MIGRATION_COUNT = (
  JSON.parse(readFileSync(join(OBSERVABILITY_MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: unknown[]
  }
).entries.length

const quietLog = createLogger({ secrets: [], write: () => {} })

async function publicTables(db: Db): Promise<string[]> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(
      sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`,
    ),
  )
  return rows.map((r) => r.name)
}

async function recordedMigrations(db: Db, table: string): Promise<number> {
  const rows = rowsOf<{ n: number }>(
    await db.execute(sql.raw(`select count(*)::int as n from drizzle."${table}"`)),
  )
  return rows[0]!.n
}

/** The tables take the rows the observability work will write, and refuse what they must. */
async function assertSchemaHolds(db: Db) {
  const [run] = await db.insert(retentionRuns).values({ trigger: 'boot' }).returning()
  assert.equal(run!.outcome, 'running')
  assert.equal(run!.finishedAt, null)
  await assert.rejects(
    db.execute(sql`update popagent_obs_retention_runs set outcome = 'succeeded'`),
    'a finished run needs its finish time',
  )
  await db.insert(modelPrices).values({
    provider: 'gateway',
    model: 'anthropic/claude-sonnet-4-5',
    inputUsdPerMtok: 3,
    outputUsdPerMtok: 15,
    cacheReadUsdPerMtok: 0.3,
    effectiveFrom: new Date('2026-01-01T00:00:00Z'),
  })
  const [price] = await db.select().from(modelPrices)
  assert.equal(price!.cacheReadUsdPerMtok, 0.3)
  assert.equal(price!.cacheWriteUsdPerMtok, null)
  await assert.rejects(
    db.insert(modelPrices).values({
      provider: 'gateway',
      model: 'free',
      inputUsdPerMtok: -1,
      outputUsdPerMtok: 0,
      effectiveFrom: new Date(),
    }),
    'a negative price is refused',
  )
}

test('the observability schema migrates once on a real PostgreSQL, however many starts race for it', async () => {
  const database = await createDatabaseOnServer()
  const handles = Array.from({ length: 3 }, () => openNodePostgres(database.url, { max: 2 }))
  try {
    await Promise.all(handles.map((h) => migrateObservabilityDatabase(h)))
    const db = handles[0]!.db
    assert.deepEqual(await publicTables(db), OBSERVABILITY_TABLES)
    assert.equal(await recordedMigrations(db, OBSERVABILITY_MIGRATIONS_TABLE), MIGRATION_COUNT)
    await migrateObservabilityDatabase(handles[1]!)
    assert.equal(await recordedMigrations(db, OBSERVABILITY_MIGRATIONS_TABLE), MIGRATION_COUNT)
    await assertSchemaHolds(db)
  } finally {
    await Promise.all(handles.map((h) => h.close()))
    await database.drop()
  }
})

test('the observability schema migrates on the embedded database, and a second run is a no-op', async () => {
  const handle = embeddedHandle(await openEmbeddedMemory())
  try {
    await migrateObservabilityDatabase(handle)
    await migrateObservabilityDatabase(handle)
    assert.deepEqual(await publicTables(handle.db), OBSERVABILITY_TABLES)
    assert.equal(
      await recordedMigrations(handle.db, OBSERVABILITY_MIGRATIONS_TABLE),
      MIGRATION_COUNT,
    )
    await assertSchemaHolds(handle.db)
  } finally {
    await handle.close()
  }
})

test('a started host has migrated its observability database, and only its own tables are there', async () => {
  const app = await createDatabaseOnServer()
  const observability = await createDatabaseOnServer()
  try {
    const host = await startComputeHost(
      parseHostEnv({
        DATABASE_URL: app.url,
        OBSERVABILITY_DATABASE_URL: observability.url,
        NINEROUTER_URL: 'http://127.0.0.1:1/v1',
      }),
      { port: 0, log: quietLog },
    )
    try {
      const { application, observability: obs } = host.resources.databases
      // Beside ours, only Mastra's observability storage (its `mastra_*` event tables).
      await host.resources.observability.initialised
      const obsTables = await publicTables(obs.db)
      assert.deepEqual(
        obsTables.filter((t) => !t.startsWith('mastra_')),
        OBSERVABILITY_TABLES,
      )
      assert.ok(obsTables.includes('mastra_span_events'), obsTables.join())
      const appTables = await publicTables(application.db)
      assert.ok(appTables.includes('popagent_sessions'))
      for (const table of OBSERVABILITY_TABLES) assert.ok(!appTables.includes(table), table)
      assert.deepEqual(
        appTables.filter((t) => t.startsWith('mastra_') && t.endsWith('_events')),
        [],
      )
      // The tracer is in the resource bag, and a span can be opened, nested and ended.
      const span = host.resources.tracer.startSpan('turn', { traceId: '0'.repeat(32) })
      span.child('tool_call', { tool: 'repo-brief' }).end('ok')
      span.end('aborted')
    } finally {
      await host.stop()
    }
  } finally {
    await app.drop()
    await observability.drop()
  }
})

test('popagent migrate migrates both real databases, and again is a no-op', async () => {
  const app = await createDatabaseOnServer()
  const observability = await createDatabaseOnServer()
  const env = { DATABASE_URL: app.url, OBSERVABILITY_DATABASE_URL: observability.url }
  const handle = openNodePostgres(observability.url, { max: 1 })
  try {
    const first = runCli(['migrate'], env)
    assert.equal(await first.exited, 0, first.output())
    assert.match(
      first.output(),
      /migrated the postgres application database .*data migrations applied/,
    )
    assert.match(first.output(), /migrated the postgres observability database/)
    assert.deepEqual(await publicTables(handle.db), OBSERVABILITY_TABLES)

    const again = runCli(['migrate'], env)
    assert.equal(await again.exited, 0, again.output())
    assert.match(again.output(), /data migrations up to date/)
    assert.equal(
      await recordedMigrations(handle.db, OBSERVABILITY_MIGRATIONS_TABLE),
      MIGRATION_COUNT,
    )
  } finally {
    await handle.close()
    await app.drop()
    await observability.drop()
  }
})

test('popagent migrate migrates both embedded databases in the data directory (one instance, two schemas)', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-migrate-'))
  try {
    const run = runCli(['migrate'], { POPAGENT_DATA_DIR: dataDir })
    assert.equal(await run.exited, 0, run.output())
    assert.match(run.output(), /migrated the embedded observability database/)
    const pglite = await openPglite(join(dataDir, 'app'))
    const handle = embeddedHandle(pglite, { schema: OBSERVABILITY_SCHEMA })
    const application = embeddedHandle(pglite)
    try {
      const rows = rowsOf<{ name: string }>(
        await handle.db.execute(
          sql`select tablename as name from pg_tables where schemaname = ${OBSERVABILITY_SCHEMA} order by 1`,
        ),
      )
      // The schema holds its tables and its own migration history.
      assert.deepEqual(
        rows.map((r) => r.name),
        [OBSERVABILITY_MIGRATIONS_TABLE, ...OBSERVABILITY_TABLES],
      )
      assert.ok(!(await publicTables(application.db)).includes(OBSERVABILITY_TABLES[0]!))
    } finally {
      await handle.close()
      await application.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})
