import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { drizzleOptions, type Db } from '../../db/index.ts'
import type { DatabaseHandle } from './handle.ts'
import { createPgListener } from './pg-listener.ts'

/**
 * A real PostgreSQL server through node-postgres. The compute host does not use postgres.js
 * (which the edge keeps, for Workers): postgres.js 3.4.9 throws an uncatchable TypeError from a
 * `setImmediate` when a connection closes with a small write buffered (porsager/postgres#1154,
 * #1208, unreleased fix), which killed runner processes in our PostgreSQL-restart test. A pool
 * error is an event here, handled below, and the query that met it is rejected.
 */
export function openNodePostgres(
  url: string,
  options: { max?: number; applicationName?: string; onError?: (error: Error) => void } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    ...(options.applicationName && { application_name: options.applicationName }),
  })
  // A client losing its server emits 'error'; unhandled, that crashes the process. The pool
  // listens on idle clients only, so every client gets a listener of its own as well (the query
  // in flight on it is rejected either way).
  const onError = options.onError ?? (() => {})
  pool.on('error', onError)
  pool.on('connect', (client) => client.on('error', onError))
  const db = drizzle(pool, drizzleOptions) as unknown as Db
  return {
    kind: 'postgres',
    db,
    async withSessionLock(key, fn) {
      // A session lock belongs to one connection: every statement under it runs on this client.
      const client = await pool.connect()
      try {
        await client.query('select pg_advisory_lock($1)', [key])
        try {
          return await fn(drizzle(client, drizzleOptions) as unknown as Db)
        } finally {
          await client.query('select pg_advisory_unlock($1)', [key])
        }
      } finally {
        client.release()
      }
    },
    migrateSchema: (lockedDb: Db, migrationsFolder: string, migrationsTable?: string) =>
      migrate(lockedDb as unknown as Parameters<typeof migrate>[0], {
        migrationsFolder,
        migrationsTable,
      }),
    pgPoolConfig: () => ({
      connectionString: url,
      max: 4,
      ...(options.applicationName && { application_name: `${options.applicationName}-mastra` }),
    }),
    listen: (channel, onNotify, onConnect) =>
      createPgListener(url, channel, onNotify, onConnect, options.onError),
    close: () => pool.end(),
  }
}
