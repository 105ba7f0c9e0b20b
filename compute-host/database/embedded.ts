import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import { vector } from '@electric-sql/pglite-pgvector'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { drizzleOptions, type Db } from '../../db/index.ts'
import type { DatabaseHandle } from './handle.ts'

/**
 * The embedded PostgreSQL: PGlite (PostgreSQL compiled to WASM) in this process, with pgvector.
 * PGlite is one backend session, not a server: everything that uses it must live in this process
 * (docs/architecture.md, Databases), which is why the single-process start owns it and hands it to the edge in memory.
 */
export function embeddedHandle(pglite: PGlite): DatabaseHandle {
  const db = drizzle(pglite, drizzleOptions) as unknown as Db
  return {
    kind: 'embedded',
    db,
    async withSessionLock(key, fn) {
      // One session: the lock only guards against re-entrance; it can never wait on anyone.
      await pglite.query('select pg_advisory_lock($1)', [key])
      try {
        return await fn(db)
      } finally {
        await pglite.query('select pg_advisory_unlock($1)', [key])
      }
    },
    migrateSchema: (lockedDb: Db, migrationsFolder: string, migrationsTable?: string) =>
      migrate(lockedDb as unknown as Parameters<typeof migrate>[0], {
        migrationsFolder,
        migrationsTable,
      }),
    // The shim serialises on PGlite's single session: more than one connection deadlocks.
    pgPoolConfig: () => ({ ...createPgConfig(pglite), max: 1 }),
    async listen(channel, onNotify, onConnect) {
      const stop = await pglite.listen(channel, onNotify)
      onConnect?.()
      return stop
    },
    close: () => pglite.close(),
  }
}

export function isInitialised(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'))
}

/** Opens (creating on first use) one embedded database in `dir`. */
export async function openPglite(dir: string | undefined, loadDataDir?: Blob): Promise<PGlite> {
  const pglite = await PGlite.create(dir ?? 'memory://', {
    extensions: { vector },
    ...(loadDataDir && { loadDataDir }),
  })
  // Make pgvector available to every later migration; it is part of what "embedded" promises.
  await pglite.exec('create extension if not exists vector')
  return pglite
}

/**
 * Opens (creating on first use) the application and observability databases under `dataDir`.
 *
 * A new data directory costs one initdb (about 5 s here); the observability database is then
 * cloned from a dump of the freshly initialised, still empty application cluster (about 1.5 s)
 * instead of paying for a second initdb. Nothing but the empty cluster is copied.
 */
export async function openEmbeddedPair(dataDir: string): Promise<{
  application: PGlite
  observability: PGlite
  created: boolean
}> {
  const appDir = join(dataDir, 'app')
  const obsDir = join(dataDir, 'observability')
  await mkdir(dataDir, { recursive: true })
  const created = !isInitialised(appDir)
  if (!created && isInitialised(obsDir)) {
    // A restart: open both at once; their WASM start-ups overlap.
    const [application, observability] = await Promise.all([openPglite(appDir), openPglite(obsDir)])
    return { application, observability, created }
  }
  const application = await openPglite(appDir)
  let observability: PGlite
  if (isInitialised(obsDir)) {
    observability = await openPglite(obsDir)
  } else {
    const { rows } = await application.query<{ count: number }>(
      "select count(*)::int as count from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
    )
    // Clone only an empty cluster: once the application database has tables, start from initdb.
    const seed = rows[0]?.count === 0 ? await application.dumpDataDir('none') : undefined
    observability = await openPglite(obsDir, seed)
  }
  return { application, observability, created }
}

/** An in-memory embedded database, for tests of the embedded path. */
export async function openEmbeddedMemory(): Promise<PGlite> {
  return openPglite(undefined)
}
