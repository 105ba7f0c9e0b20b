import { z } from 'zod'
import { SessionId, TaskId } from '../ids.ts'
import { Line, ModelId, StorableText } from './fields.ts'

/**
 * Observability (X7, B2) as the API shows it: token usage and its cost, traces with their spans,
 * the log lines of a run or request, feedback on an answer, model prices and the health of the
 * observability storage. Everything is read from the observability database by the host.
 */

export const TraceId = z.string().regex(/^[0-9a-f]{32}$/, 'a trace id is 32 hex characters')
export const SpanId = z.string().regex(/^[0-9a-f]{16}$/, 'a span id is 16 hex characters')
// Storable (no NUL, no lone surrogate): PostgreSQL cannot hold either, and a query parameter with
// one is a database error, not the 400 it should be.
const AgentId = Line(80)
const ModelName = ModelId
const tokens = z.number().int().nonnegative()
const usd = z.number().nonnegative().max(1_000_000)

export const USAGE_GROUPS = ['model', 'agent', 'session', 'task', 'day'] as const
export const UsageGroup = z.enum(USAGE_GROUPS)

/** Which usage to total, grouped how; `days` reaches back from now. */
export const UsageQuery = z.strictObject({
  groupBy: UsageGroup.default('model'),
  sessionId: SessionId.optional(),
  taskId: TaskId.optional(),
  traceId: TraceId.optional(),
  days: z.coerce.number().int().min(1).max(365).default(30),
})
export type UsageQuery = z.infer<typeof UsageQuery>

/** One group's usage on one model; cost is null when the model has no price. */
export const UsageRow = z.object({
  key: z.string(),
  model: z.string(),
  inputTokens: tokens,
  outputTokens: tokens,
  cachedInputTokens: tokens,
  costUsd: z.number().nullable(),
})
export type UsageRow = z.infer<typeof UsageRow>

export const UsageReport = z.object({
  groupBy: UsageGroup,
  rows: z.array(UsageRow),
  totals: z.object({
    inputTokens: tokens,
    outputTokens: tokens,
    cachedInputTokens: tokens,
    /** The cost of the priced models only; `unpricedModels` names the others. */
    costUsd: z.number(),
    unpricedModels: z.array(z.string()),
  }),
})
export type UsageReport = z.infer<typeof UsageReport>

/** What a model costs per million tokens, from `effectiveFrom` on (the owner edits these). */
export const ModelPrice = z.object({
  model: z.string(),
  inputUsdPerMtok: z.number(),
  outputUsdPerMtok: z.number(),
  cacheReadUsdPerMtok: z.number().nullable(),
  effectiveFrom: z.string(),
})
export type ModelPrice = z.infer<typeof ModelPrice>
export const ModelPrices = z.object({ prices: z.array(ModelPrice) })

export const SetModelPrice = z.strictObject({
  model: ModelName,
  inputUsdPerMtok: usd,
  outputUsdPerMtok: usd,
  cacheReadUsdPerMtok: usd.nullable().optional(),
  /** From when the price applies; now when omitted. A change is a new row: past figures keep theirs. */
  effectiveFrom: z.iso.datetime({ offset: true }).optional(),
})
export type SetModelPrice = z.infer<typeof SetModelPrice>

export const TRACE_STATUSES = ['ok', 'error', 'running'] as const
export const TraceStatus = z.enum(TRACE_STATUSES)

export const TraceListQuery = z.strictObject({
  sessionId: SessionId.optional(),
  taskId: TaskId.optional(),
  agentId: AgentId.optional(),
  status: TraceStatus.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
})
export type TraceListQuery = z.infer<typeof TraceListQuery>

export const TraceSummary = z.object({
  traceId: z.string(),
  name: z.string(),
  status: TraceStatus,
  startedAt: z.string(),
  durationMs: z.number().nullable(),
  sessionId: z.string().nullable(),
  taskId: z.string().nullable(),
  model: z.string().nullable(),
})
export type TraceSummary = z.infer<typeof TraceSummary>
export const TraceList = z.object({ traces: z.array(TraceSummary) })

/** One span as a waterfall draws it: payloads are the stored, redacted and bounded text. */
export const TraceSpan = z.object({
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  name: z.string(),
  type: z.string(),
  status: TraceStatus,
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  agentId: z.string().nullable(),
  model: z.string().nullable(),
  inputTokens: tokens.nullable(),
  outputTokens: tokens.nullable(),
  input: z.string().nullable(),
  output: z.string().nullable(),
  error: z.string().nullable(),
})
export type TraceSpan = z.infer<typeof TraceSpan>
export const TraceDetail = z.object({ traceId: z.string(), spans: z.array(TraceSpan) })
export type TraceDetail = z.infer<typeof TraceDetail>
export const TraceParams = z.strictObject({ id: TraceId })
export const TraceRef = z.strictObject({ traceId: TraceId })

export const LogQuery = z.strictObject({
  traceId: TraceId.optional(),
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .optional(),
  level: z.enum(['info', 'warn', 'error']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
})
export type LogQuery = z.infer<typeof LogQuery>
export const LogLine = z.object({
  timestamp: z.string(),
  level: z.string(),
  message: z.string(),
  traceId: z.string().nullable(),
  requestId: z.string().nullable(),
  data: z.string().nullable(),
})
export const LogLines = z.object({ logs: z.array(LogLine) })

export const FEEDBACK_VALUES = ['up', 'down'] as const
/** Thumbs on an assistant message, joined to the turn's trace (the evolution work reads it). */
export const FeedbackBody = z.strictObject({
  traceId: TraceId,
  value: z.enum(FEEDBACK_VALUES),
  comment: StorableText(2_000).optional(),
  sessionId: SessionId.optional(),
})
export type FeedbackBody = z.infer<typeof FeedbackBody>
export const FeedbackEntry = z.object({
  traceId: z.string(),
  value: z.enum(FEEDBACK_VALUES),
  comment: z.string().nullable(),
  sessionId: z.string().nullable(),
  createdAt: z.string(),
})
export const FeedbackList = z.object({ feedback: z.array(FeedbackEntry) })
export const FeedbackSaved = z.object({ saved: z.literal(true) })

export const ObservabilityHealth = z.object({
  tracing: z.boolean(),
  storageReady: z.boolean(),
  written: z.number(),
  dropped: z.number(),
  queued: z.number(),
  exported: z.number(),
  exportFailed: z.number(),
  error: z.string().optional(),
  lastError: z.string().optional(),
  /** The web-search backend, probed when asked. */
  searxng: z.object({ ok: z.boolean(), error: z.string().optional() }).optional(),
})
export type ObservabilityHealth = z.infer<typeof ObservabilityHealth>

const retentionDays = z.number().int().min(2).max(3_650)
/** How many days each kind of record is kept (the daily retention job drops older days). */
export const RetentionSettings = z.object({
  spanDays: retentionDays,
  logDays: retentionDays,
  metricDays: retentionDays,
  feedbackDays: retentionDays,
})
export type RetentionSettings = z.infer<typeof RetentionSettings>
export const RetentionSettingsPatch = RetentionSettings.partial().strict()

export const RetentionRun = z.object({
  trigger: z.string(),
  outcome: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  partitionsDropped: z.number().nullable(),
})
export const RetentionReport = z.object({
  settings: RetentionSettings,
  lastRun: RetentionRun.nullable(),
  nextRunAt: z.string().nullable(),
})
