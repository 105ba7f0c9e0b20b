import { getTableColumns, type Table } from './drizzle-orm.ts'
import { CasingCache } from 'drizzle-orm/casing'
import { drizzleOptions } from './index.ts'

/**
 * The rows of a raw `db.execute()` result, whichever driver ran it: postgres.js answers an array,
 * node-postgres and PGlite an object with `rows`.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}

/**
 * Maps a raw row of `table` (database column names, driver values, as `db.execute()` answers a
 * `select *` or `returning *`) to the object drizzle's own select gives. A statement drizzle cannot
 * build (two CTEs joined by `union all`) still answers typed rows. Column names come from drizzle's
 * casing, with the option the database is opened with, so a column is never looked up under a
 * name drizzle would not give it.
 */
export function rawRowMapper<T extends Table>(
  table: T,
): (raw: Record<string, unknown>) => T['$inferSelect'] {
  const casing = new CasingCache(drizzleOptions.casing)
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    column,
    name: casing.getColumnCasing(column),
  }))
  return (raw) => {
    const row: Record<string, unknown> = {}
    for (const { key, column, name } of columns) {
      const value = raw[name]
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value)
    }
    return row as T['$inferSelect']
  }
}
