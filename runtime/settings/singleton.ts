import { sql } from '../../db/drizzle-orm.ts'
import type { PgTable } from '../../db/drizzle-pg-core.ts'
import type { Db } from '../../db/index.ts'
import { AppError } from '../errors.ts'

export const SettingsMissing = AppError.define('SETTINGS_MISSING', 500, 'a settings row is missing')

/**
 * Read and update one settings singleton. A missing row is a configuration error: the row was
 * seeded once by a data migration and is never recreated from code defaults.
 */
export function createSingleton<Row extends { singleton: boolean; updatedAt: Date }, Dto>(options: {
  name: string
  table: PgTable
  toDto: (row: Row) => Dto
}) {
  const missing = () =>
    new SettingsMissing(
      { settings: options.name },
      {
        message: `the ${options.name} settings row is missing from ${tableName(options.table)}; it is seeded once and never recreated from defaults — restore it from a backup`,
      },
    )
  return {
    async get(db: Db): Promise<Dto> {
      const [row] = (await db.select().from(options.table as never)) as Row[]
      if (!row) throw missing()
      return options.toDto(row)
    },
    /** Applies a validated partial update atomically; the next run reads the new values. */
    async patch(db: Db, input: Partial<Omit<Row, 'singleton' | 'updatedAt'>>): Promise<Dto> {
      const rows = (await db
        .update(options.table)
        .set({ ...input, updatedAt: sql`now()` } as never)
        .returning()) as Row[]
      if (!rows[0]) throw missing()
      return options.toDto(rows[0])
    },
  }
}

function tableName(table: PgTable): string {
  return (table as unknown as Record<symbol, string>)[Symbol.for('drizzle:Name')] ?? 'its table'
}
