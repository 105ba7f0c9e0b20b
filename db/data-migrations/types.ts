import type { Db } from '../index.ts'

/**
 * A versioned data migration: a seed or backfill that runs once, inside a transaction, and is
 * recorded in `popagent_data_migrations` under its name. Names are append-only; never rename or
 * edit one that has shipped — add a new one.
 */
export type DataMigration = {
  name: string
  up: (tx: Db) => Promise<void>
}
