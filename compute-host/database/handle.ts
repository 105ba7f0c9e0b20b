import type { PoolConfig } from 'pg'
import type { Db } from '../../db/index.ts'

/**
 * One open database, whatever drives it. `migrateSchema` runs drizzle's migrator for that driver,
 * recording applied migrations in `migrationsTable` (drizzle's default when omitted);
 * `withSessionLock` runs `fn` on a single connection holding a session-level advisory lock.
 */
export type DatabaseHandle = {
  kind: 'embedded' | 'postgres'
  db: Db
  /**
   * The schema this handle's tables live in when it shares its database with another handle (the
   * observability data inside the single embedded instance); absent when it has a database of
   * its own. `db` resolves names there already; a library driving `pgPoolConfig()` itself must be
   * told (Mastra's `schemaName`).
   */
  schema?: string
  withSessionLock<T>(key: number, fn: (db: Db) => Promise<T>): Promise<T>
  migrateSchema(db: Db, migrationsFolder: string, migrationsTable?: string): Promise<void>
  /**
   * node-postgres pool settings reaching the same database, for libraries that bring their own
   * driver (Mastra's PostgresStore). On PGlite this is the in-process shim with one connection.
   */
  pgPoolConfig(): PoolConfig
  /**
   * LISTENs on `channel`. `onConnect` runs each time the listening connection is (re)established,
   * so a caller can look for work it may have missed while the connection was down. Resolves to
   * the function that stops listening.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onConnect?: () => void,
  ): Promise<() => Promise<void>>
  close(): Promise<void>
}
