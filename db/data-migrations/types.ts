import type { Db } from '../index.ts'

/**
 * A versioned data migration: a seed or backfill that runs once, inside a transaction, and is
 * recorded in `popagent_data_migrations` under its name. Names are append-only; never rename or
 * edit one that has shipped — add a new one.
 *
 * It runs against the schema as of its place in the history, not today's: write new ones in SQL
 * that names only the columns they set (a drizzle insert names every column the table has now,
 * and breaks on an older schema).
 */
export type DataMigration = {
  name: string
  up: (tx: Db) => Promise<void>
}
