import { drizzle } from 'drizzle-orm/postgres-js'
import { migrate } from 'drizzle-orm/postgres-js/migrator'
import postgres from 'postgres'
import { connectPostgres } from '../../db/connect-postgres.ts'
import { drizzleOptions, type Db } from '../../db/index.ts'
import type { DatabaseHandle } from './handle.ts'

/** A real PostgreSQL server through postgres.js. */
export function openPostgres(
  url: string,
  options: { max?: number; applicationName?: string } = {},
): DatabaseHandle {
  const { db, close } = connectPostgres(url, options)
  return {
    kind: 'postgres',
    db,
    async withSessionLock(key, fn) {
      // A session lock belongs to one connection: a dedicated single-connection client keeps the
      // lock, and every statement run under it, on that connection. (drizzle cannot wrap a
      // postgres.js reserved connection.)
      const single = postgres(url, { max: 1, onnotice: () => {} })
      try {
        await single`select pg_advisory_lock(${key})`
        try {
          return await fn(drizzle(single, drizzleOptions))
        } finally {
          await single`select pg_advisory_unlock(${key})`
        }
      } finally {
        await single.end({ timeout: 5 })
      }
    },
    migrateSchema: (lockedDb: Db, migrationsFolder: string) =>
      migrate(lockedDb as Parameters<typeof migrate>[0], { migrationsFolder }),
    pgPoolConfig: () => ({
      connectionString: url,
      max: 4,
      ...(options.applicationName && { application_name: `${options.applicationName}-mastra` }),
    }),
    close,
  }
}
