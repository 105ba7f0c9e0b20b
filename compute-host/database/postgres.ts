import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import { connectPostgres } from '../../db/connect-postgres.ts'
import { drizzleOptions, type Db } from '../../db/index.ts'
import type { DatabaseHandle } from './handle.ts'

/** A real PostgreSQL server through postgres.js. */
export function openPostgres(url: string, options: { max?: number; applicationName?: string } = {}): DatabaseHandle {
  const { db, sql, close } = connectPostgres(url, options)
  return {
    kind: 'postgres',
    db,
    async withSessionLock(key, fn) {
      // A session lock belongs to one connection, so take one out of the pool for the duration.
      const reserved = await sql.reserve()
      try {
        await reserved`select pg_advisory_lock(${key})`
        try {
          return await fn(drizzle(reserved, drizzleOptions))
        } finally {
          await reserved`select pg_advisory_unlock(${key})`
        }
      } finally {
        reserved.release()
      }
    },
    migrateSchema: (lockedDb: Db, migrationsFolder: string) =>
      migrate(lockedDb as Parameters<typeof migrate>[0], { migrationsFolder }),
    close,
  }
}
