import { and, desc, eq, inArray, isNotNull, isNull, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { sessions } from '../../db/schema/index.ts'
import type {
  CreateSessionInput,
  ListSessionsQuery,
  PatchSessionInput,
  SaveSessionInput,
  Session,
  SessionSummary,
  UiMessage,
} from '../contracts/sessions.ts'
import { createId } from '../ids.ts'
import { PG_FOREIGN_KEY_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { SessionNotFound, WorkspaceNotFound } from './errors.ts'

export { SessionNotFound, WorkspaceNotFound }

const DEFAULT_TITLE = 'New chat'

type Row = typeof sessions.$inferSelect

const summaryColumns = {
  id: sessions.id,
  workspaceId: sessions.workspaceId,
  title: sessions.title,
  titleLocked: sessions.titleLocked,
  revision: sessions.revision,
  archivedAt: sessions.archivedAt,
  createdAt: sessions.createdAt,
  updatedAt: sessions.updatedAt,
  messageCount: sql<number>`jsonb_array_length(${sessions.messages})`.mapWith(Number),
}

function toSummary(row: Omit<Row, 'messages'> & { messageCount: number }): SessionSummary {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    title: row.title,
    titleLocked: row.titleLocked,
    revision: row.revision,
    messageCount: row.messageCount,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

function toSession(row: Row): Session {
  const messages = row.messages as UiMessage[]
  return { ...toSummary({ ...row, messageCount: messages.length }), messages }
}

/** Newest first, active or archived, optionally in one workspace; never more than the cap. */
export async function list(db: Db, query: ListSessionsQuery): Promise<SessionSummary[]> {
  const rows = await db
    .select(summaryColumns)
    .from(sessions)
    .where(
      and(
        query.status === 'archived' ? isNotNull(sessions.archivedAt) : isNull(sessions.archivedAt),
        query.workspaceId ? eq(sessions.workspaceId, query.workspaceId) : undefined,
      ),
    )
    .orderBy(desc(sessions.updatedAt), desc(sessions.id))
    .limit(query.limit)
  return rows.map(toSummary)
}

export async function get(db: Db, id: string): Promise<Session | undefined> {
  const [row] = await db.select().from(sessions).where(eq(sessions.id, id))
  return row && toSession(row)
}

/** The workspace of the most recently updated active session; none before the first session. */
export async function lastActiveWorkspace(db: Db): Promise<string | undefined> {
  const [row] = await db
    .select({ workspaceId: sessions.workspaceId })
    .from(sessions)
    .where(isNull(sessions.archivedAt))
    .orderBy(desc(sessions.updatedAt))
    .limit(1)
  return row?.workspaceId
}

export async function create(db: Db, input: CreateSessionInput): Promise<Session> {
  const workspaceId = input.workspaceId ?? DEFAULT_WORKSPACE_ID
  try {
    const [row] = await db
      .insert(sessions)
      .values({
        id: createId('session'),
        workspaceId,
        title: input.title ?? DEFAULT_TITLE,
        titleLocked: input.title !== undefined,
      })
      .returning()
    return toSession(row!)
  } catch (error) {
    if (pgErrorCode(error) === PG_FOREIGN_KEY_VIOLATION)
      throw new WorkspaceNotFound({ workspaceId })
    throw error
  }
}

export type SaveResult =
  { ok: true; session: Session } | { ok: false; reason: 'conflict'; session: Session }

/**
 * Saves messages only if the caller saw the current revision; the check and the increment are one
 * conditional UPDATE, so of two saves naming the same revision exactly one wins. A suggested
 * title is ignored once the user has renamed the session.
 */
export async function save(db: Db, id: string, input: SaveSessionInput): Promise<SaveResult> {
  const [row] = await db
    .update(sessions)
    .set({
      messages: input.messages,
      revision: sql`${sessions.revision} + 1`,
      title:
        input.title === undefined
          ? sql`${sessions.title}`
          : sql`case when ${sessions.titleLocked} then ${sessions.title} else ${input.title} end`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(sessions.id, id), eq(sessions.revision, input.revision)))
    .returning()
  if (row) return { ok: true, session: toSession(row) }
  const current = await get(db, id)
  if (!current) throw new SessionNotFound({ id })
  return { ok: false, reason: 'conflict', session: current }
}

/**
 * Appends a finished turn's messages in one UPDATE (so nothing written meanwhile is lost) and
 * increments the revision; an editor holding the old revision then gets a 409 and reloads.
 * The default title becomes the turn's first words unless the user renamed the session.
 */
export async function appendTurn(
  db: Db,
  id: string,
  messages: UiMessage[],
  suggestedTitle?: string,
): Promise<Session> {
  const [row] = await db
    .update(sessions)
    .set({
      messages: sql`${sessions.messages} || ${JSON.stringify(messages)}::jsonb`,
      revision: sql`${sessions.revision} + 1`,
      title:
        suggestedTitle === undefined
          ? sql`${sessions.title}`
          : sql`case when ${sessions.titleLocked} or ${sessions.title} <> ${DEFAULT_TITLE} then ${sessions.title} else ${suggestedTitle} end`,
      updatedAt: sql`now()`,
    })
    .where(eq(sessions.id, id))
    .returning()
  if (!row) throw new SessionNotFound({ id })
  return toSession(row)
}

/** Ids of every session (active and archived) in one workspace. */
export async function idsInWorkspace(db: Db, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(eq(sessions.workspaceId, workspaceId))
  return rows.map((r) => r.id)
}

/** Removes these session rows (threads already deleted by the caller); returns how many. */
export async function removeMany(db: Db, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const deleted = await db
    .delete(sessions)
    .where(inArray(sessions.id, ids))
    .returning({ id: sessions.id })
  return deleted.length
}

/** Rename (which locks the title) and archive or restore; messages and revision are untouched. */
export async function patch(db: Db, id: string, input: PatchSessionInput): Promise<Session> {
  const [row] = await db
    .update(sessions)
    .set({
      ...(input.title !== undefined && { title: input.title, titleLocked: true }),
      ...(input.archived !== undefined && {
        archivedAt: input.archived ? sql`coalesce(${sessions.archivedAt}, now())` : null,
      }),
      updatedAt: sql`now()`,
    })
    .where(eq(sessions.id, id))
    .returning()
  if (!row) throw new SessionNotFound({ id })
  return toSession(row)
}

/**
 * Removes the session row. Callers delete the session's Mastra thread through the compute host
 * first (handlers/routes/sessions.ts), so a row is never gone while its memory remains.
 */
export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db
    .delete(sessions)
    .where(eq(sessions.id, id))
    .returning({ id: sessions.id })
  if (deleted.length === 0) throw new SessionNotFound({ id })
}
