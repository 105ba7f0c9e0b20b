import { sql } from '../drizzle-orm.ts'
import { boolean, check, integer, numeric, pgTable, text, timestamp } from '../drizzle-pg-core.ts'

/**
 * The agent-runtime singleton: model source and default, execution and delegation bounds, and
 * background-task controls. It is seeded once by a data migration; configurable columns have no
 * database defaults on purpose, so a missing value can never be filled in silently.
 */
export const agentRuntimeSettings = pgTable(
  'popagent_agent_runtime_settings',
  {
    // Always true: the primary key plus the check makes this table hold at most one row.
    singleton: boolean().primaryKey().default(true),
    modelSource: text().notNull(),
    configuredModel: text().notNull(),
    localModel: text().notNull(),
    freeCodingModel: text().notNull(),
    supervisorMaxSteps: integer().notNull(),
    specialistMaxSteps: integer().notNull(),
    toolCallConcurrency: integer().notNull(),
    processorRetries: integer().notNull(),
    finalResponseFeedback: text().notNull(),
    delegationContextMaxMessages: integer().notNull(),
    delegationContextMaxChars: integer().notNull(),
    delegationResultMaxChars: integer().notNull(),
    delegationFailureText: text().notNull(),
    delegationTruncationText: text().notNull(),
    taskConcurrency: integer().notNull(),
    taskPollIntervalMs: integer().notNull(),
    taskTimeoutMs: integer().notNull(),
    taskAbortAckMs: integer().notNull(),
    taskStaleAfterMs: integer().notNull(),
    // Budgets of one chat turn or task tree (B1), and the loop breaker's repeat limit (B1).
    budgetInputTokens: integer().notNull(),
    budgetOutputTokens: integer().notNull(),
    budgetToolCalls: integer().notNull(),
    budgetWallTimeMs: integer().notNull(),
    budgetDelegationDepth: integer().notNull(),
    loopRepeatLimit: integer().notNull(),
    // Cost caps in the price table's unit (USD): a chat turn's, and a task tree's (lower).
    budgetCostUsd: numeric({ precision: 12, scale: 4, mode: 'number' }).notNull(),
    budgetUnattendedCostUsd: numeric({ precision: 12, scale: 4, mode: 'number' }).notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('popagent_agent_runtime_settings_singleton', sql`${t.singleton}`),
    check(
      'popagent_agent_runtime_settings_model_source',
      sql`${t.modelSource} in ('configured', 'local', 'free-coding-auto')`,
    ),
  ],
)
