import { z } from 'zod'
import { MODEL_SOURCES } from './agent-enums.ts'
import { ModelId, StorableText } from './fields.ts'

/**
 * PATCH bodies of the four settings singletons. Every field is optional, unknown fields are
 * refused, and an empty body is a 400. The GET bodies are the same fields, all present, plus
 * `updatedAt` (and, for agent-runtime, the derived `effectiveDefaultModel`).
 */
const nonEmpty = (v: object) => Object.keys(v).length > 0
const EMPTY = { message: 'give at least one setting to change' }

export const ModelSource = z.enum(MODEL_SOURCES)

// A cost cap: at least a cent, at most 100,000, to the hundredth of a cent.
const CostCap = z
  .number()
  .min(0.01)
  .max(100_000)
  .refine((v) => Math.abs(Math.round(v * 10_000) - v * 10_000) < 1e-6, {
    message: 'at most four decimal places',
  })

/**
 * The limits of one chat turn or task tree (B1), each a hard ceiling counted across the
 * supervisor and every specialist. A task may lower them for itself (`TaskBudget`), never raise
 * them past these bounds.
 */
export const BudgetLimits = z.strictObject({
  budgetInputTokens: z.number().int().min(1_000).max(1_000_000_000),
  budgetOutputTokens: z.number().int().min(100).max(100_000_000),
  budgetToolCalls: z.number().int().min(1).max(100_000),
  budgetWallTimeMs: z
    .number()
    .int()
    .min(1_000)
    .max(24 * 3_600_000),
  /**
   * The cost cap of a chat turn (and a task's own cap), in the price table's unit (USD): the
   * model call that could pass it is not made. Calls on a model with no price do not count.
   */
  budgetCostUsd: CostCap,
})
export type BudgetLimits = z.infer<typeof BudgetLimits>

export const AgentRuntimeSettingsPatch = z
  .strictObject({
    modelSource: ModelSource,
    configuredModel: ModelId,
    localModel: ModelId,
    freeCodingModel: ModelId,
    // At least two steps: the last one is reserved for the final response.
    supervisorMaxSteps: z.number().int().min(2).max(200),
    specialistMaxSteps: z.number().int().min(2).max(200),
    toolCallConcurrency: z.number().int().min(1).max(32),
    processorRetries: z.number().int().min(0).max(10),
    finalResponseFeedback: StorableText(4_000).min(1),
    delegationContextMaxMessages: z.number().int().min(0).max(200),
    delegationContextMaxChars: z.number().int().min(0).max(1_000_000),
    delegationResultMaxChars: z.number().int().min(100).max(1_000_000),
    delegationFailureText: StorableText(4_000).min(1),
    delegationTruncationText: StorableText(1_000).min(1),
    taskConcurrency: z.number().int().min(1).max(64),
    taskPollIntervalMs: z.number().int().min(100).max(600_000),
    taskTimeoutMs: z
      .number()
      .int()
      .min(1_000)
      .max(24 * 3_600_000),
    taskAbortAckMs: z.number().int().min(100).max(600_000),
    taskStaleAfterMs: z
      .number()
      .int()
      .min(60_000)
      .max(7 * 24 * 3_600_000),
    ...BudgetLimits.shape,
    // Specialists never delegate (the factory builds them without agents): depth 1 is the most
    // there is; 0 runs the supervisor alone.
    budgetDelegationDepth: z.number().int().min(0).max(1),
    loopRepeatLimit: z.number().int().min(2).max(20),
    // The cost cap of a task tree (every task the run path runs: the owner's, schedules',
    // remediations): nobody watches it, so its default is lower than a chat turn's.
    budgetUnattendedCostUsd: CostCap,
  })
  .partial()
  .refine(nonEmpty, EMPTY)
export type AgentRuntimeSettingsPatch = z.infer<typeof AgentRuntimeSettingsPatch>

// Ratios in (0, 1] or absolute token counts ≥ 1000, as Mastra accepts them.
const RatioOrTokens = z
  .number()
  .refine((v) => (v > 0 && v <= 1) || (Number.isInteger(v) && v >= 1000), {
    message: 'a ratio in (0, 1] or a whole number of tokens ≥ 1000',
  })
const BlockAfter = z
  .number()
  .refine((v) => (v >= 1 && v < 100) || (Number.isInteger(v) && v >= 100), {
    message: 'a multiplier in [1, 100) or a whole number of tokens ≥ 100',
  })

export const MemorySettingsPatch = z
  .strictObject({
    enabled: z.boolean(),
    observationMessageTokens: z.number().int().min(1_000).max(1_000_000),
    reflectionObservationTokens: z.number().int().min(1_000).max(1_000_000),
    rawHistoryRetention: RatioOrTokens,
    asyncBuffering: z.boolean(),
    observationBufferTokens: RatioOrTokens,
    reflectionBufferActivation: z.number().gt(0).lte(1),
    observationBlockAfter: BlockAfter,
    reflectionBlockAfter: BlockAfter,
    activateAfterIdle: z.union([
      z.enum(['auto', 'off']),
      z.string().regex(/^\d+(ms|s|m|h)$/, 'auto, off, or a duration such as 5m'),
    ]),
    activateOnProviderChange: z.boolean(),
    shareTokenBudget: z.boolean(),
    previousObserverTokens: z.number().int().min(0).max(100_000),
    temporalMarkers: z.boolean(),
    observeAttachments: z.enum(['auto', 'on', 'off']),
    retrievalScope: z.enum(['off', 'thread', 'resource']),
    observerInstruction: StorableText(8_000),
    reflectorInstruction: StorableText(8_000),
    // Cross-session recall (X2) and long-term memory retention (X1).
    recallEnabled: z.boolean(),
    recallBudgetTokens: z.number().int().min(100).max(8_000),
    // The gateway's embedding model for the vector leg; null: full-text recall only.
    embeddingModel: ModelId.nullable(),
    // Agent and evolution facts older than this are pruned; null keeps them. Never user memories.
    factRetentionDays: z.number().int().min(1).max(36_500).nullable(),
  })
  .partial()
  .refine(nonEmpty, EMPTY)
export type MemorySettingsPatch = z.infer<typeof MemorySettingsPatch>

export const AutonomySettingsPatch = z
  .strictObject({
    evolutionEnabled: z.boolean(),
    skillCreationEnabled: z.boolean(),
    automaticFactRetention: z.boolean(),
    selfUpdateEnabled: z.boolean(),
    deploymentEnabled: z.boolean(),
  })
  .partial()
  .refine(nonEmpty, EMPTY)
export type AutonomySettingsPatch = z.infer<typeof AutonomySettingsPatch>

export const BrowserSettingsPatch = z
  .strictObject({
    enabled: z.boolean(),
    // The owner's opt-ins for interactive roles (runtime/browser/policy.ts), off by default.
    allowScriptEvaluation: z.boolean(),
    allowCredentialReaders: z.boolean(),
    // Absolute folder (on the browser server's machine) uploads may come from; '' allows none.
    uploadFolder: z
      .string()
      .max(1024)
      .refine((v) => v === '' || (v.startsWith('/') && !v.split('/').includes('..')), {
        message: "an absolute folder without '..', or '' for none",
      }),
  })
  .partial()
  .refine(nonEmpty, EMPTY)
export type BrowserSettingsPatch = z.infer<typeof BrowserSettingsPatch>

type Full<T> = { [K in keyof T]-?: Exclude<T[K], undefined> } & { updatedAt: string }
export type AgentRuntimeSettings = Full<AgentRuntimeSettingsPatch> & {
  effectiveDefaultModel: string
}
export type MemorySettings = Full<MemorySettingsPatch>
export type AutonomySettings = Full<AutonomySettingsPatch>
export type BrowserSettings = Full<BrowserSettingsPatch>
