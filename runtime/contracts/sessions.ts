import { z } from 'zod'
import { SessionId, WorkspaceId } from '../ids.ts'
import { Title } from './fields.ts'
import type { LiveTurnRef, LiveTurnView } from './live-turns.ts'
import { isStorable, UNSTORABLE_MESSAGE } from './storable-text.ts'

/**
 * Session wire types shared by the handlers, the UI and the CLI. Never redeclare these shapes on
 * the client: import them.
 */

/** One AI SDK UI message as stored with a session. Parts stay open: the SDK adds kinds. */
export const UiMessage = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string().min(1).max(100) })).max(10_000),
  // An object when present: Mastra adds its own keys to a message's metadata.
  metadata: z.record(z.string(), z.unknown()).optional(),
})
export type UiMessage = z.infer<typeof UiMessage>

export const SESSION_LIST_CAP = 200

export const SessionStatus = z.enum(['active', 'archived'])
export type SessionStatus = z.infer<typeof SessionStatus>

export const ListSessionsQuery = z.strictObject({
  status: SessionStatus.default('active'),
  workspaceId: WorkspaceId.optional(),
  limit: z.coerce.number().int().min(1).max(SESSION_LIST_CAP).default(SESSION_LIST_CAP),
})
export type ListSessionsQuery = z.infer<typeof ListSessionsQuery>

export const CreateSessionInput = z.strictObject({
  workspaceId: WorkspaceId.optional(),
  title: Title.optional(),
})
export type CreateSessionInput = z.infer<typeof CreateSessionInput>

/** The largest value of a PostgreSQL `integer` (int4) column. */
export const INT4_MAX = 2_147_483_647

export const SaveSessionInput = z.strictObject({
  // Stored in an int4 column: a larger number is a 400 here, not a failed statement.
  revision: z.number().int().min(0).max(INT4_MAX),
  messages: z.array(UiMessage).max(5_000).refine(isStorable, UNSTORABLE_MESSAGE),
  // A suggested title (for example from the first message); ignored once the user renamed.
  title: Title.optional(),
})
export type SaveSessionInput = z.infer<typeof SaveSessionInput>

export const PatchSessionInput = z
  .strictObject({
    title: Title.optional(),
    archived: z.boolean().optional(),
  })
  .refine((v) => v.title !== undefined || v.archived !== undefined, {
    message: 'give a title, archived, or both',
  })
export type PatchSessionInput = z.infer<typeof PatchSessionInput>

export const SessionParams = z.strictObject({ id: SessionId })

export type SessionSummary = {
  id: string
  workspaceId: string
  title: string
  titleLocked: boolean
  revision: number
  messageCount: number
  archivedAt: string | null
  createdAt: string
  updatedAt: string
  /** The turn running in this session now, or null (runtime/contracts/live-turns.ts). */
  liveTurn: LiveTurnRef | null
}

/** A session with its saved messages; a running turn's user message is on `liveTurn` until saved. */
export type Session = Omit<SessionSummary, 'liveTurn'> & {
  messages: UiMessage[]
  liveTurn: LiveTurnView | null
}
