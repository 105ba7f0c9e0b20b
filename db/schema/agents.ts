import { sql } from '../drizzle-orm.ts'
import { boolean, check, jsonb, pgTable, text } from '../drizzle-pg-core.ts'
import type { BrowserAccess, WorkspaceAccess } from '../agent-enums.ts'
import { timestamps } from './_columns.ts'

export type { BrowserAccess, WorkspaceAccess }

/**
 * The persisted system agents. PostgreSQL is canonical: the compute host builds every run's
 * agents from these rows, and there is no prompt or capability fallback in code. Rows are seeded
 * once by a versioned data migration; configurable columns have no database defaults.
 */
export const agents = pgTable(
  'popagent_agents',
  {
    id: text().primaryKey(),
    displayName: text().notNull(),
    delegationDescription: text().notNull(),
    instructions: text().notNull(),
    sourceUrls: jsonb().$type<string[]>().notNull(),
    workspaceAccess: text().$type<WorkspaceAccess>().notNull(),
    browserAccess: text().$type<BrowserAccess>().notNull(),
    delegationEligible: boolean().notNull(),
    // Names from the tool catalog (runtime/agents/tool-catalog.ts), checked on every write.
    tools: jsonb().$type<string[]>().notNull(),
    // Null: inherit the model route the request selected (or the persisted default).
    modelOverride: text(),
    ...timestamps,
  },
  (t) => [
    check(
      'popagent_agents_workspace_access_check',
      sql`${t.workspaceAccess} in ('none', 'read-only', 'read-write')`,
    ),
    check(
      'popagent_agents_browser_access_check',
      sql`${t.browserAccess} in ('none', 'read-only', 'interactive')`,
    ),
  ],
)
