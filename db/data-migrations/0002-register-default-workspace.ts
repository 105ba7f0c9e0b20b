import { sql } from '../drizzle-orm.ts'
import type { DataMigration } from './types.ts'

/** The default workspace is the popagent checkout itself, under POPAGENT_WORKSPACE_ROOT. */
export const DEFAULT_WORKSPACE_ID = 'wsp_default'

export const registerDefaultWorkspace: DataMigration = {
  name: '0002-register-default-workspace',
  // Raw SQL naming only its own columns: drizzle's insert lists every column the table has today
  // (`default` for the rest), which fails on a database migrated only up to an older schema, as
  // the migration tests do (0019 added a column). Same rows as before.
  async up(tx) {
    await tx.execute(sql`
      insert into popagent_agent_workspaces (id, name, path)
      values (${DEFAULT_WORKSPACE_ID}, 'popagent', 'popagent')
      on conflict do nothing`)
  },
}
