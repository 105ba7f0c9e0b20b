import { sql } from '../drizzle-orm.ts'
import { rowsOf } from '../rows.ts'
import type { DataMigration } from './types.ts'

const rowCount = (result: unknown) => rowsOf(result).length

/**
 * Migration 0024 adds the cost caps with column defaults (2 USD a chat turn, 1 USD a task tree),
 * so that the singleton gets its starting values both where it exists already and where the seed
 * (0001, which runs after every schema migration and names only its own columns) creates it. Once
 * the singleton holds them, the defaults go: configurable settings columns carry none, so a
 * missing value is never filled in silently (test/settings.test.ts).
 */
export const costCapsWithoutDefaults: DataMigration = {
  name: '0006-cost-caps-without-defaults',
  async up(tx) {
    // A database migrated only up to an older schema (the migration tests do that; an install
    // never runs newer code on an older schema) has no such columns: nothing to drop there.
    const present = await tx.execute(sql`
      select 1 from information_schema.columns
      where table_name = 'popagent_agent_runtime_settings' and column_name = 'budget_cost_usd'`)
    if (rowCount(present) === 0) return
    await tx.execute(sql`
      alter table popagent_agent_runtime_settings
        alter column budget_cost_usd drop default,
        alter column budget_unattended_cost_usd drop default`)
  },
}
