import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { drizzleOptions, type Db } from './index.ts'

/**
 * A postgres.js connection pool and its drizzle handle. Edge-safe: used by the Node processes and
 * by the Workers entry (one small pool per request there).
 */
export function connectPostgresJs(
  url: string,
  options: { max?: number; applicationName?: string } = {},
): { db: Db; sql: postgres.Sql; close: () => Promise<void> } {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? 'popagent' },
  })
  const db = drizzle(sql, drizzleOptions)
  return { db, sql, close: () => sql.end({ timeout: 5 }) }
}
