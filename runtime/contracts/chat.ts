import { z } from 'zod'
import { SessionId, WorkspaceId } from '../ids.ts'
import { ModelId } from './fields.ts'
import { UiMessage } from './sessions.ts'
import { isStorable, UNSTORABLE_MESSAGE } from './storable-text.ts'

/**
 * What a user message may hold. Mastra downloads every file (and `image`) part and every
 * `experimental_attachments` entry that names a URL, on the turn that sends it and again on every
 * later turn of the thread, since the message stays in memory: a URL here would make the server
 * fetch whatever a client names, loopback and private addresses included. So parts are text, or
 * files carried inline as `data:` URLs (the UI sends text only), and the message has no other
 * fields.
 */
const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() })
const FilePart = z.strictObject({
  type: z.literal('file'),
  mediaType: z.string().min(1).max(200),
  url: z
    .string()
    .refine(
      (url) => /^data:/i.test(url),
      'a file must be sent inline as a data: URL; the server never fetches a URL',
    ),
  filename: z.string().max(1_000).optional(),
  providerMetadata: z.record(z.string(), z.unknown()).optional(),
})
const UserPart = z.discriminatedUnion('type', [TextPart, FilePart], {
  error: 'a user message holds text parts and file parts only',
})
const UserMessage = z.strictObject({
  ...UiMessage.shape,
  role: z.literal('user', { error: 'the message must be a user message' }),
  parts: z.array(UserPart).max(10_000),
})

/**
 * `POST /api/chat`: the only things a client decides for a turn. Tools, step limits, prompts and
 * execution options are server-side; unknown fields are refused.
 */
export const ChatRequest = z.strictObject({
  sessionId: SessionId,
  workspaceId: WorkspaceId,
  model: ModelId.optional(),
  // Only the newest user message: Mastra rebuilds history from the session's thread.
  message: UserMessage.refine(isStorable, UNSTORABLE_MESSAGE),
})
export type ChatRequest = z.infer<typeof ChatRequest>

/** What the supervisor or a specialist is doing, shown beside the reply. */
export const AgentActivity = z.object({
  /** `guard`: a budget or loop-breaker stop, with `tool` naming which and `error` why. */
  kind: z.enum(['delegation', 'tool', 'guard']),
  agentId: z.string(),
  agentName: z.string(),
  /** The tool, for `tool` activity. */
  tool: z.string().optional(),
  status: z.enum(['running', 'completed', 'failed']),
  /** A bounded, secret-redacted summary of what was asked (prompt or tool input). */
  input: z.string().optional(),
  /** A bounded, secret-redacted summary of the result. */
  output: z.string().optional(),
  error: z.string().optional(),
  startedAt: z.string(),
  durationMs: z.number().optional(),
})
export type AgentActivity = z.infer<typeof AgentActivity>

export const ACTIVITY_PART = 'data-agentActivity'

/** Token usage of one model in a turn. */
export const ModelUsage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
})

/** Metadata on every assistant message a turn produces. */
const BudgetNumbers = {
  inputTokens: z.number(),
  outputTokens: z.number(),
  toolCalls: z.number(),
  wallTimeMs: z.number(),
  /** Priced model calls only, in the price table's unit (USD); absent on turns saved before. */
  costUsd: z.number().optional(),
}

/** A run's budget (B1): what it used, its limits, and the limit that ended it, if one did. */
export const BudgetReport = z.object({
  used: z.object(BudgetNumbers),
  limits: z.object({ ...BudgetNumbers, delegationDepth: z.number() }),
  exhausted: z
    .enum(['inputTokens', 'outputTokens', 'toolCalls', 'wallTimeMs', 'costUsd'])
    .optional(),
  /** Why the loop breaker ended the whole run (two agents stopped), when it did. */
  loopStopped: z.string().optional(),
  /** Models the turn called that have no price: only the token limits counted them. */
  unpricedModels: z.array(z.string()).optional(),
  /** Why the price table could not be read: the turn's calls were not priced. */
  pricesUnavailable: z.string().optional(),
})
export type BudgetReport = z.infer<typeof BudgetReport>

export const AssistantMetadata = z.object({
  turnId: z.string(),
  traceId: z.string(),
  model: z.string(),
  usage: z.record(z.string(), ModelUsage),
  /** The same tokens per agent (by agent id), with the model each ran on. */
  usageByAgent: z.record(z.string(), ModelUsage.extend({ model: z.string() })).optional(),
  aborted: z.boolean().optional(),
  error: z.string().optional(),
  /** The session revision this turn was saved as; only on the final chunk of a saved turn, absent when it was aborted or failed. */
  savedRevision: z.number().int().optional(),
  /** The turn's budget as it stands; `exhausted` marks an answer cut short by it. */
  budget: BudgetReport.optional(),
})
export type AssistantMetadata = z.infer<typeof AssistantMetadata>
