import { z } from 'zod'
import { SessionId } from '../ids.ts'
import type { UiMessage } from './sessions.ts'

/**
 * Live turns: a chat turn runs on the compute host whatever happens to the request that started
 * it, and any client can join it while it runs (`GET /api/chat/:id/stream`, the AI SDK's resume
 * convention: 204 when nothing runs, else the turn's UI-message stream) or stop it
 * (`POST /api/sessions/:id/stop`).
 */

/** The highest chunk number a resume may name (a turn never streams anywhere near it). */
export const MAX_CHUNK_NUMBER = 2_147_483_647

/**
 * Chunk numbers as a resume names them: the SSE `id:` of the last event the client received.
 * Events are numbered from 1; 0 (or none) replays the turn from its start.
 */
export const ChunkNumber = z.coerce.number().int().min(0).max(MAX_CHUNK_NUMBER)

export const ChatStreamParams = z.strictObject({ id: SessionId })

/** `?after=N`: resume after chunk N (the `Last-Event-ID` header says the same; the query wins). */
export const ChatStreamQuery = z.strictObject({ after: ChunkNumber.optional() })

/** The `Last-Event-ID` an EventSource or a reconnecting client sends; other headers pass. */
export const ChatStreamHeaders = z.looseObject({ 'last-event-id': ChunkNumber.optional() })

/** What a stop did: whether a turn was running here and was told to stop, and which. */
export const StoppedTurn = z.object({ stopped: z.boolean(), turnId: z.string().nullable() })
export type StoppedTurn = z.infer<typeof StoppedTurn>

/** The turn running in a session, as the session list and a session's summary show it. */
export type LiveTurnRef = { turnId: string; startedAt: string }

/** The same in one session's read, with the user's message the turn answers (not yet saved). */
export type LiveTurnView = LiveTurnRef & { message: UiMessage }
