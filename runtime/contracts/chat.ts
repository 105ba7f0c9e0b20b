import { z } from 'zod'
import { SessionId, WorkspaceId } from '../ids.ts'
import { UiMessage } from './sessions.ts'
import { isStorable, UNSTORABLE_MESSAGE } from './storable-text.ts'

/**
 * `POST /api/chat`: the only things a client decides for a turn. Tools, step limits, prompts and
 * execution options are server-side; unknown fields are refused.
 */
export const ChatRequest = z.strictObject({
  sessionId: SessionId,
  workspaceId: WorkspaceId,
  model: z.string().trim().min(1).max(200).optional(),
  // Only the newest user message: Mastra rebuilds history from the session's thread.
  message: UiMessage.refine((m) => m.role === 'user', 'the message must be a user message').refine(
    isStorable,
    UNSTORABLE_MESSAGE,
  ),
})
export type ChatRequest = z.infer<typeof ChatRequest>

/** What the supervisor or a specialist is doing, shown beside the reply. */
export const AgentActivity = z.object({
  kind: z.enum(['delegation', 'tool']),
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
export const AssistantMetadata = z.object({
  turnId: z.string(),
  traceId: z.string(),
  model: z.string(),
  usage: z.record(z.string(), ModelUsage),
  aborted: z.boolean().optional(),
  error: z.string().optional(),
})
export type AssistantMetadata = z.infer<typeof AssistantMetadata>
