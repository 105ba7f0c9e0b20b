import { sql } from '../drizzle-orm.ts'
import {
  boolean,
  check,
  doublePrecision,
  integer,
  pgTable,
  text,
  timestamp,
} from '../drizzle-pg-core.ts'

/**
 * The Observational Memory singleton (compute-host/memory/observational-options.ts maps each to Mastra's options).
 * Seeded once by a data migration; configurable columns have no database defaults.
 */
export const memorySettings = pgTable(
  'popagent_memory_settings',
  {
    singleton: boolean().primaryKey().default(true),
    enabled: boolean().notNull(),
    observationMessageTokens: integer().notNull(),
    reflectionObservationTokens: integer().notNull(),
    // Share of the observation threshold kept as raw history when observations activate.
    rawHistoryRetention: doublePrecision().notNull(),
    asyncBuffering: boolean().notNull(),
    observationBufferTokens: doublePrecision().notNull(),
    reflectionBufferActivation: doublePrecision().notNull(),
    observationBlockAfter: doublePrecision().notNull(),
    reflectionBlockAfter: doublePrecision().notNull(),
    activateAfterIdle: text().notNull(),
    activateOnProviderChange: boolean().notNull(),
    shareTokenBudget: boolean().notNull(),
    previousObserverTokens: integer().notNull(),
    temporalMarkers: boolean().notNull(),
    observeAttachments: text().notNull(),
    retrievalScope: text().notNull(),
    observerInstruction: text().notNull(),
    reflectorInstruction: text().notNull(),
    // Cross-session recall and long-term memories (migration 0010 added these with defaults,
    // so the row seeded before them keeps working): recall on, FTS only until a model is named.
    recallEnabled: boolean().notNull().default(true),
    recallBudgetTokens: integer().notNull().default(1_500),
    embeddingModel: text(),
    // Agent and evolution facts older than this are pruned; null keeps them. Never user memories.
    factRetentionDays: integer(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [check('popagent_memory_settings_singleton', sql`${t.singleton}`)],
)
