import { PGlite, type Transaction } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import { vector } from '@electric-sql/pglite-pgvector'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { existsSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { drizzleOptions, type Db } from '../../db/index.ts'
import type { DatabaseHandle } from './handle.ts'

/**
 * The embedded PostgreSQL: PGlite (PostgreSQL compiled to WASM) in this process, with pgvector.
 * PGlite is one backend session, not a server: everything that uses it must live in this process
 * (docs/architecture.md, Databases), which is why the single-process start owns it and hands it to the edge in memory.
 *
 * One instance holds both of popagent's databases: the application's tables in `public` (and
 * drizzle's history in `drizzle`), the observability database's in the OBSERVABILITY_SCHEMA,
 * reached through `embeddedHandle(pglite, { schema })` (each instance costs about 150 MB resident;
 * a PGlite session cannot switch databases, so schemas are how one instance keeps them apart).
 */

/** Where the observability data lives inside the single embedded instance. */
export const OBSERVABILITY_SCHEMA = 'observability'

/**
 * PGlite's default start parameters with a smaller shared_buffers. PostgreSQL's default (128 MB)
 * is resident in full once the WASM heap is set up; 16 MB holds popagent's working set (the
 * data directory is tens of MB, and reads that miss come from the OS page cache).
 */
export const EMBEDDED_SHARED_BUFFERS = '16MB'
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`,
]

/**
 * A handle on an embedded instance. With `schema`, the handle's statements resolve unqualified
 * names in that schema only (each runs in a transaction with `set local search_path`), its
 * migration history is kept there, and `pgPoolConfig` consumers must qualify names themselves
 * (Mastra's `schemaName`, from `handle.schema`). Handles sharing an instance close it when the
 * last of them closes.
 */
export function embeddedHandle(pglite: PGlite, options: { schema?: string } = {}): DatabaseHandle {
  const schema = options.schema
  const client = schema ? inSchema(pglite, schema) : pglite
  const db = drizzle({ client: client as PGlite, ...drizzleOptions }) as unknown as Db
  const release = share(pglite)
  return {
    kind: 'embedded',
    db,
    ...(schema && { schema }),
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
        ...(schema && { migrationsSchema: schema }),
      }),
    // The shim serialises on PGlite's single session: more than one connection deadlocks.
    pgPoolConfig: () => ({ ...createPgConfig(pglite), max: 1 }),
    async listen(channel, onNotify, onConnect) {
      const stop = await pglite.listen(channel, onNotify)
      onConnect?.()
      return stop
    },
    close: release,
  }
}

const holders = new WeakMap<PGlite, { count: number; closing?: Promise<void> }>()

/** Counts one more handle on `pglite`; the returned close closes it after the last handle's. */
function share(pglite: PGlite): () => Promise<void> {
  const held = holders.get(pglite) ?? { count: 0 }
  held.count++
  holders.set(pglite, held)
  let released = false
  return async () => {
    if (!released) {
      released = true
      held.count--
    }
    if (held.count > 0) return
    held.closing ??= pglite.closed ? Promise.resolve() : pglite.close()
    await held.closing
  }
}

// A statement that names no relation needs no search path (the health probe's), and is not
// wrapped: fewer transactions on the shared session.
const NO_RELATION = /^\s*select\s+1\s*;?\s*$/i

/**
 * The part of PGlite that drizzle uses (query, transaction), with every statement resolving
 * names in `schema` only. `set local` lasts until the transaction ends, and PGlite's query and
 * transaction share one lock, so no statement of the application's runs with this path.
 */
function inSchema(pglite: PGlite, schema: string) {
  const path = `set local search_path to "${schema.replace(/"/g, '""')}"`
  const scoped = <T>(fn: (tx: Transaction) => Promise<T>) =>
    pglite.transaction(async (tx) => {
      await tx.exec(path)
      return fn(tx)
    })
  return {
    query: ((text: string, params?: unknown[], options?: object) =>
      NO_RELATION.test(text)
        ? pglite.query(text, params, options)
        : scoped((tx) => tx.query(text, params, options))) as PGlite['query'],
    transaction: (<T>(fn: (tx: Transaction) => Promise<T>) => scoped(fn)) as PGlite['transaction'],
  }
}

export function isInitialised(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'))
}

/** Opens (creating on first use) one embedded database in `dir`. */
export async function openPglite(dir: string | undefined, loadDataDir?: Blob): Promise<PGlite> {
  const pglite = await PGlite.create(dir ?? 'memory://', {
    extensions: { vector },
    startParams: START_PARAMS,
    ...(loadDataDir && { loadDataDir }),
  })
  // Make pgvector available to every later migration; it is part of what "embedded" promises.
  await pglite.exec('create extension if not exists vector')
  return pglite
}

/**
 * Opens (creating on first use) the one embedded instance under `dataDir/app` that holds both
 * databases, with the observability schema created. `legacyObservability` is the separate
 * observability cluster an older popagent made in `dataDir/observability`, when it holds rows:
 * it stays in use (a second instance) so nothing recorded there is lost. An empty one (nothing
 * wrote to it before this version) is removed, and the schema takes its place.
 */
export async function openEmbeddedSingle(dataDir: string): Promise<{
  pglite: PGlite
  created: boolean
  legacyObservability?: PGlite
}> {
  const appDir = join(dataDir, 'app')
  const legacyDir = join(dataDir, 'observability')
  await mkdir(dataDir, { recursive: true })
  const created = !isInitialised(appDir)
  const pglite = await openPglite(appDir)
  try {
    await pglite.exec(`create schema if not exists "${OBSERVABILITY_SCHEMA}"`)
    let legacyObservability: PGlite | undefined
    if (isInitialised(legacyDir)) {
      const legacy = await openPglite(legacyDir)
      if (await holdsRows(legacy)) legacyObservability = legacy
      else {
        await legacy.close()
        await rm(legacyDir, { recursive: true, force: true })
      }
    }
    return { pglite, created, ...(legacyObservability && { legacyObservability }) }
  } catch (error) {
    await pglite.close().catch(() => {})
    throw error
  }
}

/** Whether any table outside the system schemas and drizzle's history has a row. */
async function holdsRows(pglite: PGlite): Promise<boolean> {
  const { rows } = await pglite.query<{ schema: string; name: string }>(
    `select schemaname as schema, tablename as name from pg_tables
      where schemaname not in ('pg_catalog', 'information_schema', 'drizzle')`,
  )
  for (const { schema, name } of rows) {
    const quoted = (id: string) => `"${id.replace(/"/g, '""')}"`
    const found = await pglite.query(`select 1 from ${quoted(schema)}.${quoted(name)} limit 1`)
    if (found.rows.length) return true
  }
  return false
}

/** An in-memory embedded database, for tests of the embedded path. */
export async function openEmbeddedMemory(): Promise<PGlite> {
  return openPglite(undefined)
}
