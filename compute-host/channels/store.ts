import { and, desc, eq, isNull, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channelBindings, channelEvents, sessionMessages, sessions } from '../../db/schema/index.ts'
import type { BindingRow } from '../../runtime/channels/index.ts'
import { createId } from '../../runtime/ids.ts'
import type { ChannelTarget } from './types.ts'

/**
 * The channel service's statements: events recorded once, bindings found or made, a session
 * for a binding, and the answer a turn saved. One statement each, explained where it matters.
 */
export type EventState = 'received' | 'refused' | 'running' | 'done' | 'failed' | 'ignored'

/**
 * Records an inbound event once. The unique (channel, external id) makes a redelivery a
 * conflict: the answer is then the first delivery's id, with `duplicate`.
 */
export async function recordEvent(
  db: Db,
  event: {
    channelId: string
    externalId: string
    sender: string | null
    kind: string
    summary: Record<string, unknown>
    state: EventState
    detail?: string
  },
): Promise<{ id: string; duplicate: boolean }> {
  const id = createId('channelEvent')
  const inserted = await db
    .insert(channelEvents)
    .values({ id, ...event, detail: event.detail ?? null })
    .onConflictDoNothing({ target: [channelEvents.channelId, channelEvents.externalId] })
    .returning({ id: channelEvents.id })
  if (inserted.length === 1) return { id, duplicate: false }
  const [first] = await db
    .select({ id: channelEvents.id })
    .from(channelEvents)
    .where(
      and(
        eq(channelEvents.channelId, event.channelId),
        eq(channelEvents.externalId, event.externalId),
      ),
    )
  return { id: first?.id ?? id, duplicate: true }
}

export async function setEventState(
  db: Db,
  id: string,
  state: EventState,
  detail?: string,
  bindingId?: string,
): Promise<void> {
  await db
    .update(channelEvents)
    .set({ state, detail: detail ?? null, ...(bindingId && { bindingId }) })
    .where(eq(channelEvents.id, id))
}

/** Records the task a `/task` event queued, so its result finds the way back. */
export async function linkTask(db: Db, eventId: string, taskId: string): Promise<void> {
  await db
    .update(channelEvents)
    .set({ summary: sql`${channelEvents.summary} || ${JSON.stringify({ taskId })}::jsonb` })
    .where(eq(channelEvents.id, eventId))
}

/**
 * The binding of a conversation and thread, made on first contact. A message from it clears a
 * block (the recipient is talking to the bot again).
 */
export async function bindingFor(
  db: Db,
  channelId: string,
  target: ChannelTarget,
): Promise<BindingRow> {
  const [row] = await db
    .insert(channelBindings)
    .values({ id: createId('channelBinding'), channelId, ...target })
    .onConflictDoUpdate({
      target: [channelBindings.channelId, channelBindings.conversation, channelBindings.thread],
      set: { blockedAt: null, updatedAt: sql`now()` },
    })
    .returning()
  return row!
}

/** Points a binding at a session (a new one after `/new`, or its first). */
export async function bindSession(db: Db, bindingId: string, sessionId: string): Promise<void> {
  await db
    .update(channelBindings)
    .set({ sessionId, updatedAt: sql`now()` })
    .where(eq(channelBindings.id, bindingId))
}

/** Whether the binding's session can take a turn (it exists and is not archived). */
export async function sessionUsable(db: Db, sessionId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), isNull(sessions.archivedAt)))
  return row !== undefined
}

type Part = { type?: string; text?: string }
type SavedMessage = {
  role?: string
  parts?: Part[]
  metadata?: { error?: string; aborted?: boolean }
}

/**
 * The text of the session's last message when it is the assistant's (the turn saved it,
 * redacted), with the error or stop its metadata records.
 */
export async function lastAnswer(
  db: Db,
  sessionId: string,
): Promise<{ text: string; error?: string; aborted?: boolean } | undefined> {
  const [row] = await db
    .select({ message: sessionMessages.message })
    .from(sessionMessages)
    .where(eq(sessionMessages.sessionId, sessionId))
    .orderBy(desc(sessionMessages.position))
    .limit(1)
  const message = row?.message as SavedMessage | undefined
  if (message?.role !== 'assistant') return undefined
  const text = (message.parts ?? [])
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('')
  return {
    text,
    ...(message.metadata?.error && { error: message.metadata.error }),
    ...(message.metadata?.aborted && { aborted: true }),
  }
}
