/**
 * The embedded database is one PGlite instance holding both of popagent's databases: the
 * application's in `public` (history in `drizzle`), the observability database's in a schema of
 * its own. Their data must stay separable: neither sees the other's tables through its default
 * search path, each migration touches only its own schema, and an older data directory's separate
 * observability cluster is retired only when it is empty.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import type { PGlite } from '@electric-sql/pglite'
import type { Db } from '../db/index.ts'
import { rowsOf } from '../db/rows.ts'
import { retentionRuns } from '../db/observability/schema/index.ts'
import {
  embeddedHandle,
  OBSERVABILITY_SCHEMA,
  openEmbeddedSingle,
  openPglite,
} from '../compute-host/database/embedded.ts'
import { migrateDatabase, migrateObservabilityDatabase } from '../compute-host/database/migrate.ts'
import { openDatabases } from '../compute-host/database/open.ts'
import { parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'

const quietLog = createLogger({ secrets: [], write: () => {} })

/** Every table and column outside the system schemas, as `schema.table.column type`. */
async function layout(pglite: PGlite): Promise<string[]> {
  const { rows } = await pglite.query<{ c: string }>(
    `select table_schema || '.' || table_name || '.' || column_name || ' ' || data_type as c
       from information_schema.columns
      where table_schema not in ('pg_catalog', 'information_schema')
      order by 1`,
  )
  return rows.map((r) => r.c)
}

const inSchema = (all: string[], schema: string) => all.filter((c) => c.startsWith(`${schema}.`))

async function fails(db: Db, query: string): Promise<string> {
  const error = await db.execute(sql.raw(query)).then(
    () => undefined,
    (e: unknown) => e as { cause?: { code?: string } },
  )
  assert.ok(error, `${query} should fail`)
  return error.cause?.code ?? 'unknown'
}

test('one instance, two schemas: each database sees only its own tables, and each migration touches only its own schema', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-single-'))
  try {
    const { pglite, created } = await openEmbeddedSingle(dataDir)
    assert.equal(created, true)
    const application = embeddedHandle(pglite)
    const observability = embeddedHandle(pglite, { schema: OBSERVABILITY_SCHEMA })
    assert.equal(observability.schema, OBSERVABILITY_SCHEMA)
    assert.equal(application.schema, undefined)
    try {
      const before = await layout(pglite)
      await migrateObservabilityDatabase(observability)
      const afterObservability = await layout(pglite)
      // The observability migration added only to its own schema; the rest is as it was.
      assert.deepEqual(
        afterObservability.filter((c) => !c.startsWith(`${OBSERVABILITY_SCHEMA}.`)),
        before,
      )
      assert.ok(
        inSchema(afterObservability, OBSERVABILITY_SCHEMA).some((c) =>
          c.startsWith(`${OBSERVABILITY_SCHEMA}.__drizzle_migrations_observability.`),
        ),
        'its migration history is kept in its schema too',
      )

      await migrateDatabase(application)
      const afterBoth = await layout(pglite)
      // The application's migration left the observability schema exactly as it was.
      assert.deepEqual(
        inSchema(afterBoth, OBSERVABILITY_SCHEMA),
        inSchema(afterObservability, OBSERVABILITY_SCHEMA),
      )
      assert.ok(
        inSchema(afterBoth, 'public').some((c) => c.startsWith('public.popagent_sessions.')),
      )
      assert.ok(
        !inSchema(afterBoth, 'public').some((c) => c.includes('popagent_obs_')),
        'no observability table in public',
      )
      // A second run of either is a no-op on both schemas.
      await migrateObservabilityDatabase(observability)
      await migrateDatabase(application)
      assert.deepEqual(await layout(pglite), afterBoth)

      // Neither default search path reaches the other's tables (42P01: undefined table).
      assert.equal(
        await fails(application.db, 'select * from popagent_obs_retention_runs'),
        '42P01',
      )
      assert.equal(await fails(observability.db, 'select * from popagent_sessions'), '42P01')

      // Rows written through the observability handle land in its schema, inside transactions too.
      await observability.db.insert(retentionRuns).values({ trigger: 'boot' })
      await observability.db.transaction(async (tx) => {
        await tx.insert(retentionRuns).values({ trigger: 'daily' })
      })
      const counted = await pglite.query<{ n: number }>(
        `select count(*)::int as n from ${OBSERVABILITY_SCHEMA}.popagent_obs_retention_runs`,
      )
      assert.equal(counted.rows[0]!.n, 2)
      // The application's session is back on its own path after the observability's statements.
      const path = rowsOf<{ search_path: string }>(
        await application.db.execute(sql`show search_path`),
      )
      assert.equal(path[0]!.search_path, 'public')
      // The health probe's statement works on both.
      await application.db.execute(sql`select 1`)
      await observability.db.execute(sql`select 1`)
    } finally {
      await observability.close()
      assert.equal(pglite.closed, false, 'the instance stays open while a handle holds it')
      await application.close()
      assert.equal(pglite.closed, true, 'and closes with the last handle')
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})

test('an older data directory: an empty observability cluster is retired, one with rows stays in use', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-single-legacy-'))
  const env = parseHostEnv({ POPAGENT_DATA_DIR: dataDir, NINEROUTER_URL: 'http://127.0.0.1:1/v1' })
  try {
    // An older popagent's layout: a cluster of its own in observability/, migrated, with a row.
    const legacy = embeddedHandle(await openPglite(join(dataDir, 'observability')))
    await migrateObservabilityDatabase(legacy)
    await legacy.db.insert(retentionRuns).values({ trigger: 'boot' })
    await legacy.close()

    let databases = await openDatabases(env, quietLog)
    try {
      assert.equal(databases.observability.schema, undefined, 'the old cluster is still used')
      const rows = await databases.observability.db.select().from(retentionRuns)
      assert.equal(rows.length, 1, 'its row is kept')
    } finally {
      await databases.close()
    }

    // Emptied (nothing was ever recorded there by an older version), it is retired on the next start.
    const emptied = embeddedHandle(await openPglite(join(dataDir, 'observability')))
    await emptied.db.delete(retentionRuns)
    await emptied.close()
    databases = await openDatabases(env, quietLog)
    try {
      assert.equal(databases.observability.schema, OBSERVABILITY_SCHEMA)
      assert.equal(existsSync(join(dataDir, 'observability')), false)
      await migrateObservabilityDatabase(databases.observability)
      assert.deepEqual(await databases.observability.db.select().from(retentionRuns), [])
    } finally {
      await databases.close()
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})
