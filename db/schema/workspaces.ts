import { boolean, pgTable, text } from '../drizzle-pg-core.ts'
import { timestamps } from './_columns.ts'

/**
 * Registered repositories. `path` is relative to POPAGENT_WORKSPACE_ROOT; the registry that
 * checks it resolves inside that root arrives with the workspace tools (W1).
 */
export const workspaces = pgTable('popagent_agent_workspaces', {
  id: text().primaryKey(),
  name: text().notNull().unique(),
  path: text().notNull(),
  /**
   * Whether the agents' file tools may write the files that make git or the owner's tools run
   * code later (.gitattributes, the hooks folder, .envrc …; compute-host/workspaces/
   * exec-trigger-guard.ts). The owner's choice, off until they make it.
   */
  allowExecTriggerWrites: boolean().notNull().default(false),
  ...timestamps,
})
